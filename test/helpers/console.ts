/**
 * A browser-like client of the console, over `app.inject` or over HTTP to a listening app (a base URL):
 * keeps cookies, reads each page's CSRF token and sends it with the next form, as a browser submitting
 * that page would.
 */
import type { FastifyInstance } from 'fastify';

export interface ConsolePage {
  status: number;
  body: string;
  headers: Record<string, unknown>;
  location: string | undefined;
}

export class ConsoleClient {
  readonly cookies = new Map<string, string>();
  csrfToken: string | undefined;

  /**
   * `target`: the app (driven with inject) or the base URL it listens on (`http://127.0.0.1:<port>`).
   * `remoteAddress`: the client address the server sees (inject only; its default: 127.0.0.1).
   */
  constructor(
    private readonly target: FastifyInstance | string,
    private readonly remoteAddress?: string,
  ) {}

  private async send(
    method: 'GET' | 'POST',
    url: string,
    headers: Record<string, string>,
    payload?: string,
  ): Promise<Response> {
    if (typeof this.target === 'string') {
      const response = await fetch(`${this.target}${url}`, {
        method,
        headers,
        body: payload,
        redirect: 'manual',
      });
      const all: Record<string, unknown> = Object.fromEntries(response.headers);
      all['set-cookie'] = response.headers.getSetCookie();
      return { statusCode: response.status, body: await response.text(), headers: all };
    }
    return this.target.inject({
      method,
      url,
      headers,
      ...(payload === undefined ? {} : { payload }),
      ...(this.remoteAddress && { remoteAddress: this.remoteAddress }),
    });
  }

  private cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  private remember(response: { headers: Record<string, unknown>; body: string }): void {
    const set = response.headers['set-cookie'];
    for (const line of Array.isArray(set) ? set : set ? [set] : []) {
      const [pair] = String(line).split(';');
      const [name, ...value] = (pair ?? '').split('=');
      if (name) this.cookies.set(name.trim(), value.join('='));
    }
    const token = /name="_csrf" value="([^"]+)"/.exec(response.body)?.[1];
    if (token) this.csrfToken = token;
  }

  async get(url: string): Promise<ConsolePage> {
    const response = await this.send('GET', url, { cookie: this.cookieHeader() });
    this.remember(response);
    return toPage(response);
  }

  /** Posts a form; `csrf: false` leaves the token out, as a forged cross-site form would. */
  async post(
    url: string,
    form: Record<string, string>,
    options: { csrf?: boolean } = {},
  ): Promise<ConsolePage> {
    const fields = new URLSearchParams(form);
    if (options.csrf !== false && this.csrfToken) fields.set('_csrf', this.csrfToken);
    const response = await this.send(
      'POST',
      url,
      { cookie: this.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' },
      fields.toString(),
    );
    this.remember(response);
    return toPage(response);
  }

  /** Logs in with an API key through the login form. */
  async login(key: string): Promise<ConsolePage> {
    await this.get('/console/login');
    return this.post('/console/login', { key });
  }
}

interface Response {
  statusCode: number;
  body: string;
  headers: Record<string, unknown>;
}

function toPage(response: Response): ConsolePage {
  const location = response.headers.location;
  return {
    status: response.statusCode,
    body: response.body,
    headers: response.headers,
    location: typeof location === 'string' ? location : undefined,
  };
}
