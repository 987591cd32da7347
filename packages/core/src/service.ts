/** What every anvil service's createApp(config) returns; `anvil serve` starts and stops these. */
export interface ServiceApp {
  readonly name: string;
  /** Starts listening; resolves with the address clients use, e.g. `http://127.0.0.1:9000`. */
  listen(): Promise<string>;
  /** Stops accepting connections and waits for in-flight requests and work to finish. */
  close(): Promise<void>;
}
