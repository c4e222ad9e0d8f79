/** Keeps dist/ (the compiled service the benchmark and the fault matrix run) as new as src/. */
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Newest modification time of the files under `dir`, ms; 0 when it does not exist. */
function newest(dir: string): number {
  let latest = 0;
  try {
    for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) latest = Math.max(latest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
    }
  } catch {
    return 0;
  }
  return latest;
}

/** Runs `npm run build` in `root` when src/ changed after dist/ was last built; true if it did. */
export function buildIfStale(root: string): boolean {
  if (newest(join(root, 'dist')) >= newest(join(root, 'src'))) return false;
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  return true;
}
