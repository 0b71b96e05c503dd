/** The model for tools that need one (ModelAccess in the Tool contract), over the session's provider. */
import type { ModelAccess, ModelAnswer, ModelQuestion, WebSearchQuery } from "../core/Tool.js";
import { MessageAssembler, type Provider } from "../providers/index.js";
import { textOf } from "./history.js";

export interface ModelAccessOptions {
  provider: Provider;
  /** The model for `model: "small"`; default the provider's own. */
  smallModel?: string;
  /** Output cap when the question names none. */
  defaultMaxTokens?: number;
}

export function createModelAccess(options: ModelAccessOptions): ModelAccess {
  const { provider } = options;
  return {
    async ask(question: ModelQuestion): Promise<ModelAnswer> {
      const model = question.model === "small" ? (options.smallModel ?? provider.model) : provider.model;
      const assembler = new MessageAssembler();
      for await (const event of provider.stream(
        {
          model,
          ...(question.system ? { system: question.system } : {}),
          messages: [{ role: "user", content: question.prompt }],
          maxTokens: question.maxTokens ?? options.defaultMaxTokens ?? 4096,
        },
        question.signal,
      )) {
        assembler.push(event);
      }
      const text = textOf(assembler.message().content);
      if (!assembler.stop?.complete) {
        const why = question.signal?.aborted ? "it was interrupted" : (assembler.errors.at(-1)?.message ?? "the answer was cut short");
        throw new Error(`The model (${model}) gave no complete answer: ${why}`);
      }
      return { text, model, ...(assembler.usage ? { usage: { input: assembler.usage.input, output: assembler.usage.output } } : {}) };
    },
    // Only when the provider searches by itself; WebSearch looks for this member to know it can.
    ...(provider.webSearch && {
      search: (query: WebSearchQuery) =>
        provider.webSearch!(
          {
            model: options.smallModel ?? provider.model,
            query: query.query,
            ...(query.allowedDomains ? { allowedDomains: query.allowedDomains } : {}),
            ...(query.blockedDomains ? { blockedDomains: query.blockedDomains } : {}),
          },
          query.signal,
        ),
    }),
  };
}
