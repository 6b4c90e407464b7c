/**
 * `process.exit` once stdout and stderr have written everything queued on them.
 *
 * Node writes to a pipe without blocking: when the reader is slower (`npm test | tee` in CI, `npm
 * run plan | less`), what does not fit in the pipe waits in the stream's queue, and `process.exit`
 * drops it. CI lost `npm test`'s last lines that way (its totals line among them) while every test
 * had passed. A write's callback runs only after every earlier write is done, so an empty write on
 * each stream marks the point where all output is out.
 */
export function exitFlushed(code: number): void {
    process.exitCode = code;
    let pending = 2;
    const done = (): void => {
        if (--pending === 0) process.exit(code);
    };
    for (const s of [process.stdout, process.stderr]) {
        // A reader that went away (`| head`) ends the stream with EPIPE: nothing more to flush.
        s.once("error", done);
        s.write("", done);
    }
}
