import { monotonicNow } from './clock';

/**
 * How long a value a credential asked for stays in force after its last request ended: long
 * enough that two workflows running at once, or one after the other within seconds, are held to
 * the stricter of their two credentials.
 */
export const CLAIM_LINGER_MS = 10_000;

/**
 * The values (rates, budgets, intervals) the credentials of one API key ask for, each in force
 * while a request made under it waits or flies, and CLAIM_LINGER_MS after. Several credentials
 * may name one key with other figures, or another *n8n Processes Sharing This Key*; the key's
 * limit is one, so the strictest value in force wins, and a change never starts the count anew.
 */
export class Claims {
	private readonly held = new Map<number, { holders: number; lastEnded: number }>();

	constructor(private readonly now: () => number = monotonicNow) {}

	/** A request made under `value`: in force until the returned function is called (once). */
	hold(value: number): () => void {
		const claim = this.held.get(value) ?? { holders: 0, lastEnded: 0 };
		claim.holders++;
		this.held.set(value, claim);
		let released = false;
		return () => {
			if (released) return;
			released = true;
			claim.holders--;
			claim.lastEnded = this.now();
		};
	}

	/** The values in force now. */
	live(): number[] {
		const now = this.now();
		for (const [value, claim] of this.held)
			if (claim.holders === 0 && now - claim.lastEnded >= CLAIM_LINGER_MS) this.held.delete(value);
		return [...this.held.keys()];
	}

	/** The smallest value in force, or `fallback` when none is. */
	lowest(fallback: number): number {
		const live = this.live();
		return live.length === 0 ? fallback : Math.min(...live);
	}

	/** The largest value in force, or `fallback` when none is. */
	highest(fallback: number): number {
		const live = this.live();
		return live.length === 0 ? fallback : Math.max(...live);
	}

	/** Whether no value is in force: dropping them loses nothing. */
	isIdle(): boolean {
		return this.live().length === 0;
	}
}
