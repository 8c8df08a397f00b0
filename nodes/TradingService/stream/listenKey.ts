import { USER_STREAM } from './activation';
import { ENDPOINTS, isServiceRejection } from '../transport';
import { STREAM_TIMINGS, type Activation } from './activation';

/**
 * The listen key of one activation: created, kept alive, deleted at the end. The key in use is
 * also kept in the state, so that the next activation deletes it when a killed process could not.
 * Its requests are urgent (transport/endpoints.ts): they go before the reads waiting for the key's
 * query rate, a catch-up's pages among them, since no event arrives until the connection is open.
 */
export class ListenKey {
	/** The key the connection uses; undefined while none is (the exchange forgot it, or stopped). */
	current?: string;
	private keptAliveAt = 0;

	constructor(private readonly activation: Activation) {}

	/** Whether the keep-alive is due at `now`. */
	due(now: number): boolean {
		return now - this.keptAliveAt >= STREAM_TIMINGS.keepAliveEveryMs;
	}

	async create(): Promise<string> {
		const { client, clock } = this.activation;
		const answer = (await client.request(ENDPOINTS.createListenKey, { urgent: true })) as {
			listenKey: string;
		};
		this.keptAliveAt = clock.now();
		this.activation.state.listenKey = answer.listenKey;
		return answer.listenKey;
	}

	async delete(listenKey: string, options: { quiet?: boolean } = {}): Promise<void> {
		const { client, state, log } = this.activation;
		if (state.listenKey === listenKey) delete state.listenKey;
		try {
			await client.request(ENDPOINTS.deleteListenKey, { qs: { listenKey }, urgent: true });
		} catch (error) {
			if (options.quiet && isServiceRejection(error)) return;
			// It expires on its own within the hour.
			log.warn(
				`the listen key could not be deleted (${(error as Error).message}); it expires on its own within ${USER_STREAM.listenKeyLifetimeMs / 60_000} minutes`,
			);
		}
	}

	/**
	 * Keeps the key alive. `gone`: the exchange no longer knows it (a new one is made);
	 * `unreachable`: the keep-alive failed otherwise and is tried again in a minute.
	 */
	async keepAlive(): Promise<'alive' | 'gone' | 'unreachable'> {
		const { client, clock, log } = this.activation;
		if (this.current === undefined) return 'gone';
		try {
			await client.request(ENDPOINTS.keepListenKeyAlive, {
				qs: { listenKey: this.current },
				urgent: true,
			});
			this.keptAliveAt = clock.now();
			return 'alive';
		} catch (error) {
			const reason = (error as Error).message;
			if (isServiceRejection(error)) {
				log.info(`the listen key is no longer valid (${reason}); a new one is created`);
				this.current = undefined;
				return 'gone';
			}
			log.warn(`the listen key could not be kept alive (${reason}); trying again in a minute`);
			this.keptAliveAt = clock.now() - STREAM_TIMINGS.keepAliveEveryMs + 60_000;
			return 'unreachable';
		}
	}
}
