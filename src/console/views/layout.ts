/**
 * The console's pages, as functions of what the task service answered. Every value goes through
 * `html`, which escapes it; the pages carry no inline script or style (the CSP forbids both).
 * This module: the frame every page shares, the login and the error page.
 */
import { html, type Html } from '../html.js';

export interface Viewer {
  /** Key id, or null when authentication is off. */
  keyId: string | null;
  owner: string;
  canWrite: boolean;
  /** What the key may do with schedules (schedules:read, and schedules:write); 'none' without them. */
  schedules: 'none' | 'read' | 'write';
  isAdmin: boolean;
  /** Authentication is on: a session exists and can be ended. */
  loggedIn: boolean;
  csrfToken: string;
}

export const STATUSES = ['SCHEDULED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'] as const;

export function layout(title: string, viewer: Viewer | undefined, body: Html): string {
  return `<!doctype html>${
    html`<html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · delayed tasks</title>
        <link rel="stylesheet" href="/console/static/console.css" />
        <script src="/console/static/console.js" defer></script>
      </head>
      <body>
        <header>
          <a href="/console"><b>Delayed tasks</b></a>
          <a href="/console">Overview</a>
          <a href="/console/tasks">Tasks</a>
          <a href="/console/tasks?status=FAILED">Dead letters</a>
          ${viewer && viewer.schedules !== 'none' ? html`<a href="/console/schedules">Schedules</a>` : ''}
          ${viewer?.isAdmin && viewer.canWrite ? html`<a href="/console/bulk">Bulk</a>` : ''}
          ${viewer ? whoAmI(viewer) : ''}
        </header>
        <main>${body}</main>
      </body>
    </html>`.text
  }`;
}

function whoAmI(viewer: Viewer): Html {
  const role = viewer.isAdmin ? 'admin' : viewer.canWrite ? 'read-write' : 'read-only';
  return html`<span class="who" data-role="${role}"
    >${viewer.keyId ? `key ${viewer.keyId}` : 'authentication off'} · owner ${viewer.owner} · ${role}
    ${
      viewer.loggedIn
        ? html`<form method="post" action="/console/logout">
            ${csrf(viewer)}<button type="submit">Log out</button>
          </form>`
        : ''
    }</span
  >`;
}

export function csrf(viewer: Pick<Viewer, 'csrfToken'>): Html {
  return html`<input type="hidden" name="_csrf" value="${viewer.csrfToken}" />`;
}

export function loginPage(csrfToken: string, error?: string): string {
  return layout(
    'Log in',
    undefined,
    html`<h1>Log in</h1>
      <p>
        Paste an API key (<code>dts_&lt;keyId&gt;_&lt;secret&gt;</code>). It stays on the server; your browser
        keeps only a session cookie.
      </p>
      ${error ? html`<p class="errors" role="alert">${error}</p>` : ''}
      <form method="post" action="/console/login">
        ${csrf({ csrfToken })}
        <label>API key <input type="password" name="key" autocomplete="off" required size="60" /></label>
        <button type="submit">Log in</button>
      </form>`,
  );
}

export function errorPage(viewer: Viewer | undefined, status: number, code: string, message: string): string {
  return layout(
    `Error ${status}`,
    viewer,
    html`<h1>${status} ${code}</h1>
      <p class="errors" role="alert">${message}</p>
      <p><a href="/console">Back to the overview</a></p>`,
  );
}
