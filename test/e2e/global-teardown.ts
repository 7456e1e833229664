import { execFileSync } from 'node:child_process';

export default function globalTeardown(): void {
  execFileSync('npx', ['tsx', 'test/e2e/support/test-stack.ts', 'stop'], { stdio: 'inherit' });
}
