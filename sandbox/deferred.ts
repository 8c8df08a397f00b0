/**
 * Work the exchange finishes after it has answered: delayed cancels (behaviour cancelApplyDelayMs)
 * and late order creates (fault createLate). Each task runs once, at its due time on the real clock
 * (Date.now(), not the offset server clock), either from its timer or, earlier than the timer gets
 * to it, from runDue() at the start of the next request, so a request sent right after the due
 * time already sees the result. Timers are unref'd: pending work never keeps a process alive.
 */

interface Task {
	due: number;
	/** Insertion order, so tasks due at the same millisecond run in the order they were deferred. */
	seq: number;
	run: () => void;
	timer: NodeJS.Timeout;
}

export class DeferredWork {
	private tasks: Task[] = [];
	private seq = 0;
	/** Work due by the sandbox clock rather than at a real time (funding settlement). */
	private readonly sweeps: (() => void)[] = [];

	/** Run `sweep` at the start of every runDue() (each request, each state getter); clear() keeps it. */
	addSweep(sweep: () => void): void {
		this.sweeps.push(sweep);
	}

	/** Run `run` once, `delayMs` real milliseconds from now. */
	defer(delayMs: number, run: () => void): void {
		const task: Task = {
			due: Date.now() + Math.max(0, delayMs),
			seq: this.seq++,
			run,
			timer: setTimeout(() => this.runDue(task.due), Math.max(0, delayMs)),
		};
		task.timer.unref();
		this.tasks.push(task);
	}

	/** Run every task due by `now` (default the real clock), earliest first. */
	runDue(now: number = Date.now()): void {
		for (const sweep of this.sweeps) sweep();
		for (;;) {
			let next: Task | undefined;
			for (const t of this.tasks) {
				if (t.due > now) continue;
				if (!next || t.due < next.due || (t.due === next.due && t.seq < next.seq)) next = t;
			}
			if (!next) return;
			// removed before it runs, so a task that defers more work (or throws) is never run twice
			this.tasks = this.tasks.filter((t) => t !== next);
			clearTimeout(next.timer);
			next.run();
		}
	}

	/** How many tasks wait. */
	get pending(): number {
		return this.tasks.length;
	}

	/** Drop every waiting task and its timer (reset() and stop()). */
	clear(): void {
		for (const t of this.tasks) clearTimeout(t.timer);
		this.tasks = [];
	}
}
