import type { Command } from 'commander';
import { CliContext, withConnectionOptions, type ConnectionOptions } from './context.js';
import { explain } from './errors.js';

/**
 * An operator command's action: given a context made from its options, it runs, and whatever it throws is
 * printed as one line with its exit code (errors.ts), never a stack trace. The context's connections are closed.
 */
export function operatorAction(
  command: Command,
  run: (ctx: CliContext, ...args: never[]) => Promise<unknown>,
): Command {
  return withConnectionOptions(command).action(async (...received: unknown[]) => {
    // commander passes the arguments, then the options, then the command itself: `run` gets the first two.
    const options = received.at(-2) as ConnectionOptions;
    const args = received.slice(0, -1) as never[];
    let ctx: CliContext | undefined;
    try {
      ctx = new CliContext(options);
      const code = await run(ctx, ...args);
      if (typeof code === 'number') process.exitCode = code;
    } catch (err) {
      const first: unknown = args[0];
      const target = typeof first === 'string' && first.includes('/') ? first : undefined;
      const { message, exitCode } = explain(err, target);
      console.error(`helmflow: ${message}`);
      process.exitCode = exitCode;
    } finally {
      await ctx?.close().catch(() => undefined);
    }
  });
}
