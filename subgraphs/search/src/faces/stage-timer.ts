/**
 * Milliseconds spent in each named stage of one request, in the order they ran: `lap` closes the
 * stage that just ended; `add` records a stage measured elsewhere (another process's share).
 * For one timing log line per request, so a slow tail can be explained stage by stage.
 */
export class StageTimer {
  readonly stages: Record<string, number> = {};
  private readonly started = performance.now();
  private last = this.started;

  lap(stage: string): void {
    const now = performance.now();
    this.add(stage, now - this.last);
    this.last = now;
  }

  add(stage: string, ms: number): void {
    this.stages[stage] = Math.round(((this.stages[stage] ?? 0) + Math.max(0, ms)) * 10) / 10;
  }

  get totalMs(): number {
    return Math.round((performance.now() - this.started) * 10) / 10;
  }
}
