/**
 * Stops the given work on the first SIGINT or SIGTERM and exits 0 once it is done; a second
 * signal while closing exits at once with 1, so an operator is never stuck.
 */
export function closeOnSignals(close: () => Promise<void>, onError: (error: unknown) => void): void {
  let closing = false;
  const handler = () => {
    if (closing) process.exit(1);
    closing = true;
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        onError(error);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", handler);
  process.on("SIGTERM", handler);
}
