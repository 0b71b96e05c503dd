// The process that lives inside a session's long-lived sandbox (plain JS, node built-ins only: it runs
// with the node binary the host runs, outside any build step). It speaks JSON lines over its stdin and
// stdout; see persistent.ts for the host side. Each command is a fresh `bash -c` in a process group of
// its own. When stdin closes (the host went away or closed the sandbox), everything is killed and it exits.
import { spawn } from "node:child_process";
import fs from "node:fs";
import readline from "node:readline";

const KILL_GRACE_MS = 1000;
const GROUP_POLL_MS = 100;
/** How often the mounts are checked while a command runs. */
const MOUNT_WATCH_MS = 200;

/** id → { child, pgid, stdin, exited, openStreams, polling } */
const commands = new Map();

function send(message) {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

/** Every command's processes carry this variable: a daemon that left the group and lost its parent is still found. */
const MARKER = "TOOLGATE_SANDBOX_COMMAND";

function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The processes of this pid namespace, by the pids this namespace uses. /proc here belongs to the sandbox's
 * outer namespace (the seccomp helper starts us in a nested one), so its entry names and PPid fields are outer
 * pids: each is translated through the innermost NSpid value, and processes of the outer namespace alone (bwrap,
 * the proxy relays, the seccomp helper) are left out.
 */
function processes() {
  const raw = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = fs.readFileSync(`/proc/${entry}/status`, "utf8");
      const nspid = nsPids(status) ?? [Number(entry)];
      if (nspid.length !== depth) continue;
      raw.push({
        entry,
        pid: nspid[nspid.length - 1],
        outerParent: Number(/^PPid:\s*(\d+)/m.exec(status)?.[1] ?? 0),
        zombie: /^State:\s*[ZX]/m.test(status),
      });
    } catch {
      // gone meanwhile
    }
  }
  const inner = new Map(raw.map((p) => [Number(p.entry), p.pid]));
  return raw.map((p) => ({ entry: p.entry, pid: p.pid, ppid: inner.get(p.outerParent), zombie: p.zombie }));
}

function nsPids(status) {
  const line = /^NSpid:\s*(.*)$/m.exec(status);
  return line ? line[1].trim().split(/\s+/).map(Number) : undefined;
}

/** How many pid namespaces deep this process is, as /proc sees it. */
const depth = (() => {
  try {
    return nsPids(fs.readFileSync("/proc/self/status", "utf8"))?.length ?? 1;
  } catch {
    return 1;
  }
})();

/** Live pids of this pid namespace (a handful: the sandbox's own) carrying command `id`'s marker. */
function marked(id) {
  const needle = Buffer.from(`${MARKER}=${id}\0`);
  const found = [];
  for (const p of processes()) {
    if (p.zombie || p.pid === process.pid) continue;
    try {
      const environ = fs.readFileSync(`/proc/${p.entry}/environ`);
      const at = environ.indexOf(needle);
      if (at === 0 || (at > 0 && environ[at - 1] === 0)) found.push(p.pid);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/**
 * Whether a command that just exited may have left something behind, answered without reading /proc when it
 * can: this namespace hands out pids in order, so if none of the pids given out since the command started is
 * in use any more, nothing it started can be running. Any doubt (a pid in use, a wrap-around, a long range)
 * falls back to the scan.
 */
function mayHaveLeftover(id, command) {
  if (groupAlive(command.pgid)) return true;
  const lastPid = () => Number(fs.readFileSync("/proc/sys/kernel/ns_last_pid", "utf8"));
  let last;
  try {
    last = lastPid();
  } catch {
    return marked(id).length > 0;
  }
  // A process that forks and exits while the range is read (a double fork) hands out a pid past `last` first:
  // the range is read again until no pid was handed out meanwhile.
  for (let rounds = 0; rounds < 8; rounds++) {
    if (!(last >= command.pgid) || last - command.pgid > 512) return marked(id).length > 0;
    for (let pid = command.pgid + 1; pid <= last; pid++) {
      try {
        process.kill(pid, 0);
        return marked(id).length > 0;
      } catch {
        // not in use
      }
    }
    let now;
    try {
      now = lastPid();
    } catch {
      return marked(id).length > 0;
    }
    if (now === last) return false;
    last = now;
  }
  return marked(id).length > 0;
}

/** Live pids (not zombies) of this pid namespace whose parent chain reaches `root` (setsid'd descendants). */
function descendants(root) {
  const parents = new Map();
  for (const p of processes()) if (!p.zombie && p.ppid !== undefined) parents.set(p.pid, p.ppid);
  const found = [];
  for (const pid of parents.keys()) {
    for (let p = parents.get(pid), hops = 0; p !== undefined && hops < 64; p = parents.get(p), hops++) {
      if (p === root) {
        found.push(pid);
        break;
      }
    }
  }
  return found;
}

function signalAll(command, signal, id) {
  if (id !== undefined) for (const pid of marked(id)) command.tree.add(pid);
  try {
    process.kill(-command.pgid, signal);
  } catch {
    // the group is gone
  }
  for (const pid of command.tree) {
    try {
      process.kill(pid, signal);
    } catch {
      // gone
    }
  }
}

function kill(id, signal) {
  const command = commands.get(id);
  if (!command) return;
  // descendants that left the group are found while their parents still live
  if (!command.exited) for (const pid of descendants(command.pgid)) command.tree.add(pid);
  signalAll(command, signal, id);
  if (signal === "SIGKILL") return;
  clearTimeout(command.escalate);
  command.escalate = setTimeout(() => signalAll(command, "SIGKILL", id), KILL_GRACE_MS);
}

/**
 * Stop (SIGSTOP) or continue (SIGCONT) everything a command runs: a long-lived process (the REPL) is stopped
 * between its calls, so nothing of it runs while a host-side change could go unnoticed; the mounts are checked
 * before it continues.
 */
function pause(id, signal) {
  const command = commands.get(id);
  if (!command || command.exited) return;
  for (const pid of descendants(command.pgid)) command.tree.add(pid);
  signalAll(command, signal, id);
}

/** The end of a command: bash exited, its pipes closed and nothing is left in its group. */
function maybeEnd(id) {
  const command = commands.get(id);
  if (!command || !command.exited || command.ended) return;
  // a daemon holding the pipes open is polled for, like one that closed them
  const leftover = mayHaveLeftover(id, command);
  if (leftover && !command.leftoverReported) {
    // The check at exit can miss a double fork in flight (the middle process gone, its child not yet in the
    // pid range read): what is found later is reported then, or the call would wait for the daemon to end.
    command.leftoverReported = true;
    send({ ev: "leftover", id });
  }
  if (command.openStreams > 0 || leftover) {
    command.polling ??= setInterval(() => maybeEnd(id), GROUP_POLL_MS);
    return;
  }
  command.ended = true;
  clearInterval(command.polling);
  clearTimeout(command.escalate);
  commands.delete(id);
  send({ ev: "end", id });
}

/**
 * The sandbox's mounts as it started. A mount whose mount point is unlinked or renamed over on the host (a
 * placeholder bwrap made for a missing safety path, a protected file an editor replaced) silently leaves this
 * namespace, and the path behind it is as writable (or readable) as its directory: the protection is gone.
 */
const mountsAtStart = mountCounts();

function mountCounts() {
  const counts = new Map();
  for (const line of fs.readFileSync("/proc/self/mountinfo", "utf8").split("\n")) {
    const point = line.split(" ")[4];
    if (point) counts.set(point, (counts.get(point) ?? 0) + 1);
  }
  return counts;
}

/** A mount point the sandbox started with and has lost, if any. */
function lostMount() {
  let now;
  try {
    now = mountCounts();
  } catch {
    return "/proc/self/mountinfo";
  }
  for (const [point, count] of mountsAtStart) if ((now.get(point) ?? 0) < count) return point.replace(/\\040/g, " ");
  return undefined;
}

/** A lost mount ends the sandbox and everything in it: nothing more runs with a policy that no longer holds. */
function failClosed(lost) {
  send({ ev: "tampered", path: lost });
  for (const [id, command] of commands) signalAll(command, "SIGKILL", id);
  process.exit(70);
}

let watch;
function watchMounts() {
  if (commands.size === 0) {
    clearInterval(watch);
    watch = undefined;
    return;
  }
  const lost = lostMount();
  if (lost !== undefined) failClosed(lost);
}

function start(request) {
  const lost = lostMount();
  if (lost !== undefined) failClosed(lost);
  const { id } = request;
  let child;
  try {
    child = spawn("/bin/bash", ["-c", request.script], {
      cwd: request.cwd,
      env: { ...request.env, [MARKER]: String(id) },
      stdio: [request.stdin ? "pipe" : "ignore", "pipe", "pipe"],
      detached: true,
    });
  } catch (err) {
    send({ ev: "error", id, message: err.message });
    return;
  }
  const command = { child, pgid: child.pid, exited: false, openStreams: 2, tree: new Set(), ended: false };
  child.on("error", (err) => {
    if (command.pgid === undefined) send({ ev: "error", id, message: err.message });
  });
  if (child.pid === undefined) return;
  commands.set(id, command);
  watch ??= setInterval(watchMounts, MOUNT_WATCH_MS);
  send({ ev: "started", id, pid: child.pid });
  child.stdin?.on("error", () => undefined);
  for (const [fd, stream] of [[1, child.stdout], [2, child.stderr]]) {
    stream.on("data", (chunk) => send({ ev: "out", id, fd, data: chunk.toString("base64") }));
    stream.on("close", () => {
      command.openStreams--;
      maybeEnd(id);
    });
  }
  child.on("exit", (code, signal) => {
    command.exited = true;
    command.leftoverReported = mayHaveLeftover(id, command);
    send({ ev: "exit", id, code, signal, leftover: command.leftoverReported });
    maybeEnd(id);
  });
}

function handle(line) {
  let request;
  try {
    request = JSON.parse(line);
  } catch {
    return;
  }
  const command = commands.get(request.id);
  switch (request.op) {
    case "spawn":
      if (!commands.has(request.id)) start(request);
      break;
    case "stdin":
      command?.child.stdin?.write(Buffer.from(request.data, "base64"));
      break;
    case "stdinEnd":
      command?.child.stdin?.end();
      break;
    case "kill":
      kill(request.id, request.signal === "SIGKILL" ? "SIGKILL" : request.signal === "SIGINT" ? "SIGINT" : "SIGTERM");
      break;
    case "pause":
      pause(request.id, "SIGSTOP");
      send({ ev: "paused", id: request.id });
      break;
    case "resume": {
      const lost = lostMount();
      if (lost !== undefined) failClosed(lost);
      pause(request.id, "SIGCONT");
      break;
    }
    case "check": {
      const lost = lostMount();
      if (lost !== undefined) failClosed(lost);
      send({ ev: "checked", id: request.id });
      break;
    }
  }
}

const input = readline.createInterface({ input: process.stdin });
input.on("line", handle);
input.on("close", () => {
  for (const [id, command] of commands) signalAll(command, "SIGKILL", id);
  process.exit(0);
});
send({ ev: "ready", pid: process.pid, env: process.env });
