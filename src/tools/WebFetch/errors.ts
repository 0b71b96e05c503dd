/** A failure the model should read; its message says what happened and what to do. */
export class WebFetchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WebFetchError";
  }
}
