/**
 * Stopping a command and everything it started. Commands run detached (their own session and process
 * group), so one signal to the group reaches every process that stayed in it; descendants that moved to
 * a group of their own (setsid) are found through their parent links and signalled one by one.
 * A process that double-forked into a session of its own and whose parent already exited is re-parented
 * away from the tree and outside the group: it is found by the marker in its environment when toolgate
 * ends (stopTrackedTrees, or the exit handler), unless it cleared its environment (the sandbox's pid
 * namespace covers that case).
 */
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";

export interface ProcessInfo {
  pid: number;
  ppid: number;
  pgid: number;
  /** `Z` for a zombie (exited, not yet reaped): it no longer runs. */
  state: string;
}

async function listFromProc(): Promise<ProcessInfo[]> {
  const entries = await fsp.readdir("/proc");
  const out: ProcessInfo[] = [];
  await Promise.all(
    entries
      .filter((e) => /^\d+$/.test(e))
      .map(async (e) => {
        try {
          const stat = await fsp.readFile(`/proc/${e}/stat`, "utf8");
          // the command name may contain spaces and parentheses: parse after the last ')'
          const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
          out.push({ pid: Number(e), state: fields[0], ppid: Number(fields[1]), pgid: Number(fields[2]) });
        } catch {
          // the process exited while we looked
        }
      }),
  );
  return out;
}

function listFromPs(): Promise<ProcessInfo[]> {
  return new Promise((resolve) => {
    execFile("ps", ["-A", "-o", "pid=,ppid=,pgid=,stat="], { maxBuffer: 16 * 1024 * 1024 }, (err, stdout) => {
      if (err) return resolve([]);
      const out: ProcessInfo[] = [];
      for (const line of stdout.split("\n")) {
        const [pid, ppid, pgid, state] = line.trim().split(/\s+/);
        if (pid && ppid && pgid) out.push({ pid: Number(pid), ppid: Number(ppid), pgid: Number(pgid), state: state ?? "" });
      }
      resolve(out);
    });
  });
}

let procAvailable: boolean | undefined;

/** Every process on the machine (Linux /proc, else `ps`). */
export async function listProcesses(): Promise<ProcessInfo[]> {
  if (procAvailable === undefined) {
    procAvailable = await fsp.access("/proc/self/stat").then(
      () => true,
      () => false,
    );
  }
  return procAvailable ? listFromProc() : listFromPs();
}

const isLive = (p: ProcessInfo) => !p.state.startsWith("Z");

/** Live processes in group `pgid` or descending from `rootPid` (through parent links). */
export function treeMembers(processes: readonly ProcessInfo[], rootPid: number, pgid = rootPid): ProcessInfo[] {
  const children = new Map<number, ProcessInfo[]>();
  for (const p of processes) {
    const list = children.get(p.ppid);
    if (list) list.push(p);
    else children.set(p.ppid, [p]);
  }
  const found = new Map<number, ProcessInfo>();
  const stack = processes.filter((p) => p.pid === rootPid || p.pgid === pgid);
  while (stack.length) {
    const p = stack.pop() as ProcessInfo;
    if (found.has(p.pid)) continue;
    found.set(p.pid, p);
    stack.push(...(children.get(p.pid) ?? []));
  }
  return [...found.values()].filter(isLive);
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

export function signalGroup(pgid: number, sig: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, sig);
    return true;
  } catch {
    return false;
  }
}

/** Whether any process is still in the group (zombies included; cheap, no listing). */
export function groupExists(pgid: number): boolean {
  return signalGroup(pgid, 0 as unknown as NodeJS.Signals);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const KILL_GRACE_MS = 1_000;
const POLL_MS = 25;
const FINAL_WAIT_MS = 2_000;

/**
 * SIGTERM to the group and to every descendant outside it, then SIGKILL to whatever still runs after
 * `graceMs`. Resolves when nothing of the tree is left running (or after a last bounded wait).
 * Returns the pids that were signalled.
 */
export async function killProcessTree(rootPid: number, graceMs = KILL_GRACE_MS): Promise<number[]> {
  let members = treeMembers(await listProcesses(), rootPid);
  // pid → its group when signalled: a pid seen again in another group is a new, unrelated process
  const signalled = new Map(members.map((p) => [p.pid, p.pgid]));
  signalGroup(rootPid, "SIGTERM");
  for (const p of members) signal(p.pid, "SIGTERM");

  const waitGone = async (deadline: number) => {
    while (Date.now() < deadline) {
      const all = await listProcesses();
      const alive = all.filter((p) => isLive(p) && (signalled.get(p.pid) === p.pgid || p.pgid === rootPid));
      const descendants = treeMembers(all, rootPid).filter((p) => !signalled.has(p.pid));
      for (const p of descendants) {
        signalled.set(p.pid, p.pgid);
        signal(p.pid, "SIGTERM");
      }
      members = [...alive, ...descendants];
      if (members.length === 0) return true;
      await sleep(POLL_MS);
    }
    return false;
  };

  if (!(await waitGone(Date.now() + graceMs))) {
    signalGroup(rootPid, "SIGKILL");
    for (const p of members) signal(p.pid, "SIGKILL");
    await waitGone(Date.now() + FINAL_WAIT_MS);
  }
  return [...signalled.keys()];
}

/**
 * Every command and hook toolgate starts carries this variable, valued for this toolgate process. A daemon
 * that double-forked into a session of its own is outside every group and no longer a descendant, but it
 * keeps its environment: that is how it is found when toolgate ends (Linux /proc; elsewhere only groups).
 */
export const TREE_MARKER_ENV = "TOOLGATE_PROCESS_TREE";
const treeMarker = `${process.pid}-${randomUUID()}`;
const markerBytes = Buffer.from(`${TREE_MARKER_ENV}=${treeMarker}\0`);

/** `env` with this process's tree marker added. */
export function withTreeMarker(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...env, [TREE_MARKER_ENV]: treeMarker };
}

function carriesMarker(environ: Buffer): boolean {
  const at = environ.indexOf(markerBytes);
  return at === 0 || (at > 0 && environ[at - 1] === 0);
}

function procPids(): string[] {
  try {
    return fs.readdirSync("/proc").filter((e) => /^\d+$/.test(e) && Number(e) !== process.pid);
  } catch {
    return [];
  }
}

/** Live processes started by this toolgate's commands and hooks (another user's environ is unreadable: skipped). */
async function markedProcesses(): Promise<number[]> {
  const found: number[] = [];
  await Promise.all(
    procPids().map(async (e) => {
      try {
        if (carriesMarker(await fsp.readFile(`/proc/${e}/environ`))) found.push(Number(e));
      } catch {
        // gone, or not ours
      }
    }),
  );
  return found;
}

function markedProcessesSync(): number[] {
  return procPids().filter((e) => {
    try {
      return carriesMarker(fs.readFileSync(`/proc/${e}/environ`));
    } catch {
      return false;
    }
  }).map(Number);
}

/** Process groups of commands still running, killed synchronously if toolgate itself exits first. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

export function trackGroup(pgid: number): void {
  liveGroups.add(pgid);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once("exit", () => {
      for (const group of liveGroups) signalGroup(group, "SIGKILL");
      for (const pid of markedProcessesSync()) signal(pid, "SIGKILL");
    });
  }
}

export function untrackGroup(pgid: number): void {
  liveGroups.delete(pgid);
}

/**
 * Stop every tree still tracked and every process that escaped one (toolgate is about to exit); resolves
 * when they are gone.
 */
export async function stopTrackedTrees(): Promise<void> {
  const escaped = await markedProcesses();
  await Promise.all([...new Set([...liveGroups, ...escaped])].map((pid) => killProcessTree(pid)));
}
