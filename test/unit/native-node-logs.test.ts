import { fallbackTerminationMessage } from '../../src/nativenode/logs.js';

describe('fallbackTerminationMessage (a kubelet keeps 80 lines, at most 2048 bytes)', () => {
  it('keeps a short log whole', () => {
    expect(fallbackTerminationMessage('wrote x\nError: boom\n')).toBe('wrote x\nError: boom\n');
  });

  it('keeps the last 80 lines of a long log', () => {
    const log = Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n') + '\n';
    const message = fallbackTerminationMessage(log);
    expect(message.startsWith('line 20\n')).toBe(true);
    expect(message.endsWith('line 99\n')).toBe(true);
  });

  it('keeps the last 2048 bytes of long lines', () => {
    const message = fallbackTerminationMessage('a'.repeat(5000) + '\nError: the end\n');
    expect(Buffer.byteLength(message)).toBe(2048);
    expect(message.endsWith('Error: the end\n')).toBe(true);
  });
});
