/**
 * faultInjector.ts: which request a fault rule takes (path and method, uses counted down), the
 * latency added before every answer, seeded random draws that repeat for a seed, and the kinds
 * setFaults accepts.
 */
import { FAULT_KINDS } from '../../sandbox';
import { useSandboxClients } from '../support/sandbox';
import { T0, TRANSFER, ORDER, BATCH, move, limit, serverTime } from './support';

const { sandbox, master } = useSandboxClients({
	now: () => T0,
	rateLimit: false,
	requestRates: false,
});
const time = () => serverTime(sandbox());

describe('fault injection', () => {
	it('rules match on path and method only', async () => {
		sandbox().setFaults({
			rules: [
				{ kind: 'http500', times: 2, path: ORDER },
				{ kind: 'http503', times: 1, method: 'GET' },
			],
		});
		expect((await master().transfer(move)).status).toBe(200);
		expect((await time()).status).toBe(503);
		expect((await time()).status).toBe(200);
	});

	it('latency is added before every response', async () => {
		sandbox().setFaults({ latencyMs: 150 });
		const t = Date.now();
		expect((await time()).status).toBe(200);
		expect(Date.now() - t).toBeGreaterThanOrEqual(140);
		sandbox().clearFaults();
		expect((await time()).status).toBe(200);
	});

	it('random faults are reproducible for a seed and can be limited to paths', async () => {
		const run = async () => {
			sandbox().reset();
			sandbox().setFaults({
				random: { seed: 42, http5xx: 0.2, dropBefore: 0.1, dropAfter: 0.1, rateLimit: 0.2 },
			});
			const out: string[] = [];
			for (let i = 0; i < 40; i++) {
				try {
					out.push(String((await time()).status));
				} catch {
					out.push('drop');
				}
			}
			return { out, faults: sandbox().ledger.requests.map((r) => r.fault ?? '-') };
		};
		const a = await run();
		const b = await run();
		expect(b).toEqual(a);
		expect(new Set(a.out).size).toBeGreaterThanOrEqual(4);
		expect(a.out.filter((s) => s === '200').length).toBeGreaterThan(5);
		sandbox().setFaults({ random: { seed: 1, http5xx: 1, paths: [TRANSFER] } });
		expect((await time()).status).toBe(200);
		expect((await master().transfer(move)).status).toBeGreaterThanOrEqual(500);
	});
});

describe('random faults draw the new kinds too', () => {
	it('http5xxAfter, unknownBefore, unknownAfter and batchReorder are reproducible for a seed', async () => {
		const run = async () => {
			sandbox().reset();
			sandbox().setFaults({
				random: {
					seed: 7,
					http5xxAfter: 0.2,
					unknownBefore: 0.2,
					unknownAfter: 0.2,
					batchReorder: 0.2,
					paths: [BATCH],
				},
			});
			for (let i = 0; i < 30; i++) await master().batch([limit(`o${i}a`), limit(`o${i}b`)]);
			return sandbox().ledger.requests.map((r) => r.fault ?? '-');
		};
		const a = await run();
		expect(await run()).toEqual(a);
		for (const k of ['unknownBefore', 'unknownAfter', 'batchReorder']) expect(a).toContain(k);
		expect(a.some((f) => f.endsWith('After') && f.startsWith('http5'))).toBe(true);
		// unknownBefore placed nothing; every other request placed both orders
		const placing = a.filter((f) => f !== 'unknownBefore').length;
		expect(sandbox().ledger.orders).toHaveLength(placing * 2);
	});

	it('FAULT_KINDS lists every kind setFaults accepts', () => {
		expect(FAULT_KINDS).toEqual(
			expect.arrayContaining(['dropAfter', 'unknownAfter', 'batchReorder', 'http503After']),
		);
		expect(() => sandbox().setFaults({ rules: [{ kind: 'nope' as never, times: 1 }] })).toThrow(
			/unknown fault kind/,
		);
	});
});

describe('random transport faults', () => {
	it('redirect, malformed, dripFeed, ipBan, numericIds and the rest are drawn reproducibly', async () => {
		const run = async () => {
			sandbox().reset();
			sandbox().setFaults({
				random: {
					seed: 11,
					redirect: 0.1,
					malformed: 0.2,
					dripFeed: 0.05,
					dripIntervalMs: 1,
					ipBan: 0.05,
					transferSuccessFalse: 0.05,
					numericIds: 0.1,
					historyOversize: 0.05,
					historyOldestFirst: 0.05,
					paths: [TRANSFER],
				},
			});
			for (let i = 0; i < 60; i++) {
				try {
					await master().transfer({ ...move, quantity: '1' });
				} catch {
					// truncated answers close the connection
				}
			}
			return sandbox().ledger.requests.map((r) => r.fault ?? '-');
		};
		const a = await run();
		expect(await run()).toEqual(a);
		const kinds = new Set(a);
		for (const k of ['dripFeed', 'ipBan', 'numericIds', 'transferSuccessFalse'])
			expect(kinds).toContain(k);
		expect([...kinds].some((k) => k.startsWith('redirect'))).toBe(true);
		expect([...kinds].some((k) => k.startsWith('answer'))).toBe(true);
	});
});

describe('random faults of the UAE kinds', () => {
	it('createLate (with createLateDelayMs), answer200Code and cancelByIdsOtherKey are drawn reproducibly', async () => {
		const run = async () => {
			sandbox().reset();
			sandbox().setFaults({
				random: {
					seed: 5,
					createLate: 0.2,
					createLateDelayMs: 1,
					answer200Code: 0.2,
					cancelByIdsOtherKey: 0.2,
					paths: [ORDER],
				},
			});
			for (let i = 0; i < 30; i++) await master().order(limit(`r${i}`));
			return sandbox().ledger.requests.map((r) => r.fault ?? '-');
		};
		const a = await run();
		expect(await run()).toEqual(a);
		for (const k of ['createLate', 'answer200Code', 'cancelByIdsOtherKey']) expect(a).toContain(k);
		expect(FAULT_KINDS).toEqual(
			expect.arrayContaining(['createLate', 'answer200Code', 'cancelByIdsOtherKey']),
		);
		// every late create is placed 1 ms later; answer200Code placed nothing
		await new Promise((r) => setTimeout(r, 20));
		const placing = a.filter((f) => f !== 'answer200Code').length;
		expect(sandbox().ledger.orders).toHaveLength(placing);
	});
});
