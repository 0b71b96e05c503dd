import fs from "node:fs";
import path from "node:path";

const MAX_SYMLINK_HOPS = 40;

/**
 * Where the absolute path `target` really leads, resolved as the kernel would: every symlink on the way is
 * followed (a `..` in a link's target climbs from where the link points, not from where it sits), also a
 * dangling one, whose target is what opening it for writing creates. What does not exist yet is kept as
 * written. `loop` when it takes more than 40 links (ELOOP: nothing can be opened there). The path is cleaned
 * up lexically first (`a/link/../b` is `a/b`) unless `asWritten`.
 */
export function resolvePhysicalPath(target: string, options: { asWritten?: boolean } = {}): { path: string; loop: boolean } {
  // The deepest ancestor that exists is resolved by the kernel; only the rest is walked here, segment by
  // segment (a dangling link does not "exist", so it is in the rest).
  const pending: string[] = []; // segments still to walk, the next one last
  // asWritten: no lexical clean-up first, so `link/../x` climbs from the link's target, as a shell's open(2) does
  let existing = options.asWritten && path.isAbsolute(target) ? target : path.resolve(target);
  while (!fs.existsSync(existing)) {
    const parent = path.dirname(existing);
    if (parent === existing) break;
    pending.push(path.basename(existing));
    existing = parent;
  }
  let resolved: string;
  try {
    resolved = fs.realpathSync.native(existing);
  } catch {
    // removed or renamed while we looked: keep it as written
    resolved = existing;
  }
  let hops = 0;
  // once a segment is missing, the ones after it cannot exist: no more lookups until a `..` climbs back
  let mayExist = true;
  while (pending.length > 0) {
    const segment = pending.pop() as string;
    if (segment === "." || segment === "") continue;
    if (segment === "..") {
      resolved = path.dirname(resolved);
      mayExist = true;
      continue;
    }
    const next = path.join(resolved, segment);
    let link: string | undefined;
    if (mayExist) {
      try {
        const stat = fs.lstatSync(next, { throwIfNoEntry: false });
        if (!stat) mayExist = false;
        else if (stat.isSymbolicLink()) link = fs.readlinkSync(next);
      } catch {
        mayExist = false;
      }
    }
    if (link === undefined) {
      resolved = next;
      continue;
    }
    if (++hops > MAX_SYMLINK_HOPS) return { path: path.join(next, ...pending.reverse()), loop: true };
    if (path.isAbsolute(link)) resolved = path.parse(link).root;
    pending.push(...link.split(path.sep).reverse());
  }
  return { path: resolved, loop: false };
}
