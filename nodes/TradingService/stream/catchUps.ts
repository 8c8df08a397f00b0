/**
 * The catch-ups of one activation, one at a time, beside the connection rather than in its way.
 * The session asks for one each time a connection opens and goes on watching that connection
 * meanwhile (heartbeat, keep-alive, reconnects): a connection that drops during a catch-up is
 * opened again at once, and the catch-up it asks for runs right after the one in progress. Asks
 * made while one runs are one: a catch-up reads from the cursor to its own start, so the next one
 * covers every connection opened before it starts.
 */
export class CatchUps {
	private running?: Promise<void>;
	private again = false;

	constructor(
		private readonly hooks: {
			/** One catch-up, from the cursor to now. */
			run: () => Promise<void>;
			/** It succeeded: the stream is whole again. */
			succeeded: () => void;
			/** It failed: the session drops the connection, and the next one asks again. */
			failed: (reason: string) => void;
			/** Whether the activation has ended: no catch-up starts then. */
			stopped: () => boolean;
		},
	) {}

	/** A catch-up after the connection that just opened: now, or after the one in progress. */
	request(): void {
		if (this.running !== undefined) {
			this.again = true;
			return;
		}
		this.running = this.loop().finally(() => (this.running = undefined));
	}

	/** Settles when no catch-up is running. */
	async idle(): Promise<void> {
		await this.running;
	}

	private async loop(): Promise<void> {
		do {
			this.again = false;
			if (this.hooks.stopped()) return;
			try {
				await this.hooks.run();
				this.hooks.succeeded();
			} catch (error) {
				this.hooks.failed((error as Error).message);
			}
		} while (this.again);
	}
}
