/** The client end of an attachment, as the session sees it (a websocket in production). */
export interface StreamSink {
  send(message: string): void;
  close(code: number, reason: string): void;
  pauseReading(): void;
  resumeReading(): void;
  /** Bytes queued towards the client and not yet written to the network. */
  readonly bufferedAmount: number;
}
