/**
 * Answers kept in memory for what never changes (what a commit holds, a blob's bytes), least
 * recently used first out, up to a total size; an answer larger than `maxEach` bytes is not kept.
 */
export class KeptAnswers<T> {
  private readonly entries = new Map<string, { value: T; bytes: number }>();
  private total = 0;
  private readonly maxTotal: number;
  private readonly maxEach: number;

  constructor(maxTotal: number, maxEach: number) {
    this.maxTotal = maxTotal;
    this.maxEach = maxEach;
  }

  get(key: string): T | undefined {
    const found = this.entries.get(key);
    if (!found) return undefined;
    this.entries.delete(key);
    this.entries.set(key, found);
    return found.value;
  }

  keep(key: string, value: T, bytes: number): void {
    if (bytes > this.maxEach || this.entries.has(key)) return;
    this.entries.set(key, { value, bytes });
    this.total += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.total <= this.maxTotal) break;
      this.entries.delete(oldest);
      this.total -= entry.bytes;
    }
  }
}
