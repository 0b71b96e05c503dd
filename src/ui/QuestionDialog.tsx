/**
 * The model's questions, one picker at a time: ↑/↓ to move, Enter to pick (or, with several allowed, Space to
 * tick and Enter to send), an "Other" entry that takes a typed answer, Esc to decline them all.
 */
import { Box, Text, useInput } from "ink";
import { useRef, useState } from "react";
import { OTHER_LABEL, type Question } from "../tools/AskUserQuestion/index.js";
import { terminalSafe } from "./components/index.js";

export interface QuestionDialogProps {
  questions: readonly Question[];
  /** Question text → the chosen label(s), joined with ", ", or the typed answer. */
  onAnswer(answers: Record<string, string>): void;
  onDecline(): void;
}

interface Step {
  question: number;
  selected: number;
  ticked: ReadonlySet<number>;
  other: string;
  answers: Record<string, string>;
}

const FIRST: Step = { question: 0, selected: 0, ticked: new Set(), other: "", answers: {} };

export function QuestionDialog({ questions, onAnswer, onDecline }: QuestionDialogProps) {
  const [step, setStepState] = useState<Step>(FIRST);
  // Keys may come faster than re-renders: each reads and updates the latest step, not a render's copy.
  const latest = useRef(step);
  const setStep = (next: Step) => {
    latest.current = next;
    setStepState(next);
  };

  /** The answer to the current question is `text`: on to the next one, or send them all. */
  const advance = (current: Step, text: string) => {
    const question = questions[current.question]!;
    const answers = { ...current.answers, [question.question]: text };
    if (current.question + 1 >= questions.length) return onAnswer(answers);
    setStep({ ...FIRST, question: current.question + 1, answers });
  };

  useInput((input, key) => {
    const current = latest.current;
    const question = questions[current.question];
    if (!question) return;
    const otherIndex = question.options.length;
    const onOther = current.selected === otherIndex;
    if (key.escape) return onDecline();
    if (key.ctrl) return;
    if (key.upArrow) return setStep({ ...current, selected: (current.selected + otherIndex) % (otherIndex + 1) });
    if (key.downArrow || (key.tab && !key.shift)) return setStep({ ...current, selected: (current.selected + 1) % (otherIndex + 1) });
    if (key.return) {
      const typed = current.other.trim();
      if (question.multiSelect) {
        const picked = question.options.filter((_, i) => current.ticked.has(i)).map((o) => o.label);
        if (typed) picked.push(typed);
        // Enter on an option nothing was ticked for picks that option alone
        if (!picked.length && !onOther) picked.push(question.options[current.selected]!.label);
        if (picked.length) advance(current, picked.join(", "));
        return;
      }
      if (onOther) {
        if (typed) advance(current, typed);
        return;
      }
      return advance(current, question.options[current.selected]!.label);
    }
    if (onOther) {
      if (key.backspace || key.delete) return setStep({ ...current, other: current.other.slice(0, -1) });
      if (input) setStep({ ...current, other: current.other + input.replace(/[\r\n]+/g, " ") });
      return;
    }
    if (input === " " && question.multiSelect) {
      const ticked = new Set(current.ticked);
      if (ticked.has(current.selected)) ticked.delete(current.selected);
      else ticked.add(current.selected);
      return setStep({ ...current, ticked });
    }
    const digit = Number(input);
    if (Number.isInteger(digit) && digit >= 1 && digit <= otherIndex + 1) setStep({ ...current, selected: digit - 1 });
  });

  const question = questions[step.question];
  if (!question) return null;
  const safe = (text: string) => terminalSafe(text, "input");
  const otherIndex = question.options.length;
  const entries = [...question.options.map((o) => ({ label: o.label, description: o.description })), { label: OTHER_LABEL, description: "type your own answer" }];
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="cyan" paddingX={1}>
      <Text wrap="truncate-end">
        <Text inverse> {safe(question.header || `Question ${step.question + 1}`)} </Text>
        {questions.length > 1 ? <Text dimColor>{`  question ${step.question + 1} of ${questions.length}`}</Text> : null}
      </Text>
      <Text bold>{safe(question.question)}</Text>
      <Box flexDirection="column" marginTop={1}>
        {entries.map((entry, i) => {
          const color = i === step.selected ? "cyan" : undefined;
          const box = question.multiSelect && i < otherIndex ? (step.ticked.has(i) ? "[x] " : "[ ] ") : "";
          return (
            <Box key={i} flexDirection="column">
              <Text color={color} wrap="truncate-end">
                {`${i === step.selected ? "❯" : " "} ${i + 1}. ${box}`}
                {safe(entry.label)}
              </Text>
              {entry.description ? (
                <Text dimColor wrap="truncate-end">
                  {"      "}
                  {safe(entry.description)}
                </Text>
              ) : null}
            </Box>
          );
        })}
      </Box>
      {step.selected === otherIndex ? (
        <Text>
          {"  "}your answer: {safe(step.other)}
          <Text inverse> </Text>
        </Text>
      ) : null}
      <Text dimColor wrap="truncate-end">
        {question.multiSelect ? "↑/↓ to move, Space to tick, Enter to send" : "↑/↓ or 1-" + (otherIndex + 1) + ", Enter to choose"} · Esc to decline
      </Text>
    </Box>
  );
}
