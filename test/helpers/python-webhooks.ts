/**
 * The Python `standardwebhooks` package from PyPI in a virtualenv of its own under .data/ (made once,
 * a few seconds), and a verifier that runs a batch of cases through it in one process.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = join(import.meta.dirname, '../..');
const venv = join(root, '.data/venv-webhooks');
const python = join(venv, 'bin/python');
/** The version the tests were written against. */
const PACKAGE = 'standardwebhooks==1.1.0';

export interface VerifyCase {
  secret: string;
  body: string;
  headers: Record<string, string>;
}

/** Makes the virtualenv when it is missing. */
export async function ensurePythonWebhooks(): Promise<void> {
  if (existsSync(python)) {
    const ok = await run(python, ['-c', 'import standardwebhooks'])
      .then(() => true)
      .catch(() => false);
    if (ok) return;
  }
  await run('python3', ['-m', 'venv', venv]);
  await run(join(venv, 'bin/pip'), ['install', '--quiet', '--disable-pip-version-check', PACKAGE], {
    timeout: 120_000,
  });
}

/** "ok" or the exception name the Python library raised, per case. */
export async function verifyWithPython(cases: VerifyCase[]): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      python,
      [join(import.meta.dirname, 'verify_webhook.py')],
      { timeout: 30_000 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`${err.message}\n${stderr}`));
        else resolve(JSON.parse(stdout) as string[]);
      },
    );
    child.stdin?.end(JSON.stringify(cases));
  });
}
