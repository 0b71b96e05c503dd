/** Child process for the kill -9 test: writes `size` bytes of `fill` to `target` through writeFileAtomicSync. */
import { writeFileAtomicSync } from "../../src/util/atomicWrite.js";

const [target, size, fill] = process.argv.slice(2);
const data = Buffer.alloc(Number(size), fill);
process.stdout.write("ready\n");
writeFileAtomicSync(target, data);
process.stdout.write("done\n");
