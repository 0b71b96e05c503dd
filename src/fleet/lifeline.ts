/**
 * A task's CLI process ends with the worker that started it, even when the worker is killed with SIGKILL and
 * cannot clean up: the worker holds one end of a pipe on fd N (TOOLGATE_LIFELINE_FD); the kernel closes it
 * when the worker dies, and the task's process then stops itself the way SIGTERM does (tools are stopped),
 * killing its process group if that does not finish soon. Without this, the run would go on unseen while
 * another worker retries the same task.
 */
import net from "node:net";

export const LIFELINE_ENV = "TOOLGATE_LIFELINE_FD";

export function watchLifeline(env: NodeJS.ProcessEnv = process.env): void {
  const fd = Number(env[LIFELINE_ENV]);
  // The tools the session runs must not think they have a lifeline of their own.
  delete env[LIFELINE_ENV];
  if (!Number.isInteger(fd) || fd < 3) return;
  let line: net.Socket;
  try {
    line = new net.Socket({ fd, readable: true, writable: false });
  } catch {
    return;
  }
  line.unref();
  line.on("error", () => undefined);
  line.resume();
  line.once("close", () => {
    const force = setTimeout(() => {
      try {
        process.kill(-process.pid, "SIGKILL");
      } catch {
        process.kill(process.pid, "SIGKILL");
      }
    }, 5_000);
    force.unref();
    process.kill(process.pid, "SIGTERM");
  });
}
