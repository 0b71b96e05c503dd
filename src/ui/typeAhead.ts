/**
 * Keys typed while the interactive UI starts. A terminal left cooked until the UI's first key reader mounts turns
 * every Enter typed meanwhile into a line feed (ICRNL) and echoes the keys over the screen: a prompt typed ahead and
 * ended with Enter showed up as a prompt with a trailing new line, not sent. The UI's first frame is drawn before
 * its readers mount, so even a key typed the moment the prompt shows could be cooked.
 *
 * While held, the terminal is in raw mode and what is typed is kept as typed, for the next reader (the UI) to read
 * first. In raw mode the terminal no longer turns Ctrl-C and Ctrl-\ into signals, so the hold does, as the cooked
 * terminal would have. What was typed before the hold began, while Node loaded the CLI, the cooked terminal has
 * already turned Enter into a line feed: it is the terminal's pending input, read before any key typed since, and
 * its line feeds are taken back to Enter.
 */

const SIGNAL_KEYS: ReadonlyArray<[byte: number, signal: NodeJS.Signals]> = [
  [0x03, "SIGINT"],
  [0x1c, "SIGQUIT"],
];

export class TypeAhead {
  private typed: Buffer[] = [];
  private holding = false;
  /** Reading what the terminal held when the hold began (typed while it was cooked). */
  private readingCooked = false;
  private holds = 0;

  constructor(
    private readonly stdin: NodeJS.ReadStream = process.stdin,
    private readonly raise: (signal: NodeJS.Signals) => void = (signal) => process.kill(process.pid, signal),
  ) {}

  private readonly onData = (chunk: Buffer | string) => {
    let bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    if (this.readingCooked) bytes = Buffer.from(bytes.toString("latin1").replace(/\n/g, "\r"), "latin1");
    for (const [byte, signal] of SIGNAL_KEYS) {
      if (!bytes.includes(byte)) continue;
      // What was typed before the interrupt goes with it, as a cooked terminal flushes its line.
      this.typed = [];
      this.raise(signal);
      return;
    }
    this.typed.push(bytes);
  };

  /** Raw mode on, and what is typed kept from now on (nothing on a stdin that is not a terminal). */
  hold(): void {
    if (this.holding || !this.stdin.isTTY || typeof this.stdin.setRawMode !== "function") return;
    this.holding = true;
    this.stdin.setRawMode(true);
    this.stdin.on("data", this.onData);
    this.readingCooked = true;
    const hold = ++this.holds;
    void pendingInputRead().then(() => {
      if (this.holds === hold) this.readingCooked = false;
    });
  }

  /** Hands over to the next reader: raw mode stays on, and what was typed is the first thing it reads. */
  async toReader(): Promise<void> {
    const data = await this.stop();
    // An earlier reader may have set an encoding; a chunk put back in front is not decoded for it.
    if (data.length > 0) this.stdin.unshift(this.stdin.readableEncoding ? data.toString(this.stdin.readableEncoding) : data);
  }

  /**
   * Hands over to a question that keys typed before it showed must not answer: what is already typed, the terminal's
   * pending input included, is read and dropped first; raw mode stays on for the question.
   */
  async toQuestion(): Promise<void> {
    if (this.holding) await pendingInputRead();
    await this.stop();
  }

  /** Drops what was typed and turns raw mode off (nobody will read it). */
  async drop(): Promise<void> {
    if (!this.holding) return;
    await this.stop();
    this.stdin.setRawMode(false);
  }

  private async stop(): Promise<Buffer> {
    if (!this.holding) return Buffer.alloc(0);
    this.holding = false;
    this.stdin.off("data", this.onData);
    this.stdin.pause();
    // process.stdin stops reading the terminal one tick after a pause. A reader added before that would see the
    // stream as still reading and never start it again; after it, adding a reader starts reading.
    await turn();
    const data = Buffer.concat(this.typed);
    this.typed = [];
    return data;
  }
}

/**
 * Until what the terminal held when reading started has been read: reading starts on the next tick, and the next
 * poll phase after that reads all the terminal holds (libuv reads until the descriptor would block). Two
 * immediates: the first may run in the loop turn whose poll is already past, the second after a poll that came
 * after the reading started.
 */
async function pendingInputRead(): Promise<void> {
  await turn();
  await new Promise((resolve) => setImmediate(resolve));
}

/** Until the ticks now due and the current loop turn have run. */
function turn(): Promise<void> {
  return new Promise((resolve) => process.nextTick(() => setImmediate(resolve)));
}
