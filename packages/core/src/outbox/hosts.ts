/** Decides which hosts and addresses deliveries may go to. */
export interface AllowedHosts {
  /** Whether the URL's host name (or IP literal) is allowed whatever it resolves to. */
  allowsName(host: string): boolean;
  /** Whether `address`, which `host` resolved to, is allowed. */
  allowsAddress(host: string, address: string): boolean;
}

export function parseAllowedHostList(_list: string): AllowedHosts {
  throw new Error("not written yet");
}
