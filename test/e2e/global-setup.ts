import { execFileSync } from 'node:child_process';

export default function globalSetup(): void {
  execFileSync('npx', ['tsx', 'test/e2e/support/test-stack.ts', 'start'], { stdio: 'inherit' });
}
