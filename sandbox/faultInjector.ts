/**
 * The fault plan in force (Sandbox.setFaults): picks the fault of each request (rules in order,
 * then a seeded random draw), and holds the latency added before every answer and the offset of
 * the server clock. What each kind does is in faults.ts.
 */
import { FAULT_KINDS, MALFORMED_KINDS, REDIRECT_KINDS, type ActiveFault } from './faults';
import { mulberry32 } from './prng';
import type { FaultKind, FaultPlan, FaultRule } from './types';

type RandomPlan = NonNullable<FaultPlan['random']> & { rnd: () => number };

export class FaultInjector {
	latencyMs = 0;
	clockOffsetMs = 0;
	private rules: FaultRule[] = [];
	private random: RandomPlan | null = null;

	/** Replace the plan; throws (changing nothing) for an unknown fault kind. */
	set(plan: FaultPlan): void {
		for (const r of plan.rules ?? []) {
			if (!FAULT_KINDS.includes(r.kind)) throw new Error(`unknown fault kind ${String(r.kind)}`);
		}
		this.latencyMs = Math.max(0, plan.latencyMs ?? 0);
		this.clockOffsetMs = plan.clockOffsetMs ?? 0;
		this.rules = (plan.rules ?? []).map((r) => ({ ...r }));
		this.random = plan.random ? { ...plan.random, rnd: mulberry32(plan.random.seed) } : null;
	}

	clear(): void {
		this.set({});
	}

	/** Wait the plan's latency. */
	delay(): Promise<void> {
		const ms = this.latencyMs;
		return ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve();
	}

	/** The fault of one request: the first matching rule with uses left (using one), else a random draw. */
	pick(method: string, path: string): ActiveFault | null {
		for (const r of this.rules) {
			if (r.times <= 0) continue;
			if (r.path !== undefined && r.path !== path) continue;
			if (r.method !== undefined && r.method.toUpperCase() !== method) continue;
			r.times--;
			return { kind: r.kind, rule: r };
		}
		const rp = this.random;
		if (rp && (!rp.paths || rp.paths.includes(path))) return draw(rp);
		return null;
	}
}

/**
 * One draw: a single number picks the kind. The probability ranges are taken in a fixed order, new
 * kinds at the end, so the same seed always gives the same faults and a plan that names only the
 * earlier kinds draws the same whatever comes after them.
 */
function draw(rp: RandomPlan): ActiveFault | null {
	const x = rp.rnd();
	let acc = 0;
	const pick = (p: number | undefined): boolean => {
		acc += p ?? 0;
		return x < acc;
	};
	const of = (kind: FaultKind): ActiveFault => ({ kind, rule: { kind, times: 1 } });
	const oneOf = (kinds: FaultKind[]): ActiveFault => of(kinds[Math.floor(rp.rnd() * kinds.length)]);
	if (pick(rp.http5xx)) return oneOf(['http500', 'http502', 'http503']);
	if (pick(rp.dropBefore)) return of('dropBefore');
	if (pick(rp.dropAfter)) return of('dropAfter');
	if (pick(rp.rateLimit)) return of('rateLimit');
	if (pick(rp.http5xxAfter)) return oneOf(['http500After', 'http502After', 'http503After']);
	if (pick(rp.unknownBefore)) return of('unknownBefore');
	if (pick(rp.unknownAfter)) return of('unknownAfter');
	if (pick(rp.batchReorder)) return of('batchReorder');
	if (pick(rp.redirect)) {
		const f = oneOf(REDIRECT_KINDS);
		f.rule.redirectStatus = rp.rnd() < 0.5 ? 303 : 307;
		return f;
	}
	if (pick(rp.malformed)) return oneOf(MALFORMED_KINDS);
	if (pick(rp.dripFeed))
		return {
			kind: 'dripFeed',
			rule: { kind: 'dripFeed', times: 1, dripIntervalMs: rp.dripIntervalMs },
		};
	if (pick(rp.ipBan)) return of('ipBan');
	if (pick(rp.transferSuccessFalse)) return of('transferSuccessFalse');
	if (pick(rp.numericIds)) return of('numericIds');
	if (pick(rp.historyOversize)) return of('historyOversize');
	if (pick(rp.historyOldestFirst)) return of('historyOldestFirst');
	if (pick(rp.createLate))
		return {
			kind: 'createLate',
			rule: { kind: 'createLate', times: 1, delayMs: rp.createLateDelayMs },
		};
	if (pick(rp.answer200Code)) return of('answer200Code');
	if (pick(rp.cancelByIdsOtherKey)) return of('cancelByIdsOtherKey');
	if (pick(rp.numericDecimals)) return of('numericDecimals');
	return null;
}
