/**
 * A load balancer's view of the API processes, as Kubernetes keeps a Service's endpoints: an API is
 * in rotation while its `/readyz` answers 200, probed every `intervalMs`. With none ready it offers
 * them all (the client's retries take over), so a scenario never stalls on the balancer itself.
 */
export class Balancer {
  private readonly ready = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private probing = false;

  constructor(
    private readonly urls: readonly string[],
    private readonly intervalMs = 250,
  ) {}

  static async start(urls: readonly string[], intervalMs?: number): Promise<Balancer> {
    const balancer = new Balancer(urls, intervalMs);
    await balancer.probe();
    balancer.timer = setInterval(() => void balancer.probe(), balancer.intervalMs);
    return balancer;
  }

  /** The APIs to send to now. */
  inRotation(): readonly string[] {
    const ready = this.urls.filter((url) => this.ready.has(url));
    return ready.length > 0 ? ready : this.urls;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async probe(): Promise<void> {
    if (this.probing) return;
    this.probing = true;
    try {
      await Promise.all(
        this.urls.map(async (url) => {
          const ok = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(1_000) })
            .then(async (res) => {
              await res.arrayBuffer();
              return res.ok;
            })
            .catch(() => false);
          if (ok) this.ready.add(url);
          else this.ready.delete(url);
        }),
      );
    } finally {
      this.probing = false;
    }
  }
}
