/**
 * Funding Rate Crosses a Threshold across a restart of n8n (issue 49), against the sandbox through
 * n8n-core's real poll path. n8n saves a poll trigger's static data only when a poll emits, so the
 * state a restarted n8n loads may predate polls that changed it. What the node promises:
 *
 * - a return and a new rise in different funding periods are found in the settled rates since the
 *   saved state, every one of them (paged by endId, read either way), up to 1,000 settlements;
 * - a return and a new rise within one funding period are not in the settled rates: with Also Fire
 *   When the Rate Comes Back the return is an item, so n8n saves it, and the rise after the restart
 *   is a crossing; without it, that crossing is not seen (documented in docs/trigger.md).
 *
 * A restart is a new runner started from the static data n8n saved at the last emit. The funding
 * intervals are weeks long, so no funding time passes while a test runs, whatever the machine.
 */
import type { IDataObject } from 'n8n-workflow';

import { defaultRate } from '../../../../sandbox/futures/funding';
import type { Sandbox } from '../../../../sandbox';
import { pollCounting, triggerRunner } from '../../../support/trigger';
import { useSandbox } from '../../../support/sandbox';

const BTC = 'BTCUSDT-PERPETUAL';
const RATE_PATH = '/api/v2/futures/fundingRate';
const HISTORY_PATH = '/api/v2/futures/historyFundingRate';
const QUERY = `event=fundingRateCrossing;symbol=${BTC};crossing=above;threshold=0.05`;

/** Rises Above 0.05 % on BTC; Also Fire When the Rate Comes Back as given. */
const parameters = (fireWhenBack: boolean): IDataObject => ({
	event: 'fundingRateCrossing',
	symbol: { __rl: true, mode: 'list', value: BTC },
	crossing: 'above',
	threshold: '0.05',
	fireWhenBack,
});

const runner = (sandbox: Sandbox, fireWhenBack: boolean, staticData?: IDataObject) =>
	triggerRunner(sandbox, { typeVersion: 2, parameters: parameters(fireWhenBack), staticData });

const paths = (requests: Array<{ path: string }>) => requests.map((request) => request.path);

describe('Funding Rate Crosses a Threshold: a return and a new rise within one funding period, across a restart', () => {
	const sandbox = useSandbox({ rateLimit: false, requestRates: false, fundingIntervalMs: 2 ** 31 });
	const setRate = (rate: string) => sandbox().futures.setFundingRates(BTC, [rate]);

	/** Polls at `rate`; the outcome, checked to have no error. */
	async function pollAt(active: ReturnType<typeof runner>, rate: string) {
		setRate(rate);
		const outcome = await pollCounting(sandbox(), active);
		expect(outcome.error).toBeUndefined();
		return outcome;
	}

	it('with Also Fire When the Rate Comes Back: the return is an item n8n saves, the rise after the restart a crossing', async () => {
		const first = runner(sandbox(), true);
		expect((await pollAt(first, '0.0001')).emitted).toBeNull();
		const crossed = await pollAt(first, '0.0006');
		expect(crossed.items.map((item) => item.json)).toEqual([
			expect.objectContaining({ event: 'crossed', rate: '0.0006', previousRate: '0.0001' }),
		]);
		const back = await pollAt(first, '0.0002');
		expect(back.items.map((item) => item.json)).toEqual([
			{
				symbol: BTC,
				event: 'back',
				rate: '0.0002',
				ratePercent: '0.02',
				threshold: '0.05',
				crossing: 'above',
				previousRate: '0.0006',
				nextFundingTime: crossed.items[0].json.nextFundingTime,
				detectedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
			},
		]);
		// n8n saved the state at that emit; it stops here, and the rate rises again meanwhile.
		const saved = first.savedStaticData();
		const restarted = runner(sandbox(), true, saved);
		const again = await pollAt(restarted, '0.0007');
		// Still the funding period of the saved state: the rate is the one request.
		expect(paths(again.requests)).toEqual([RATE_PATH]);
		expect(again.items.map((item) => item.json)).toEqual([
			expect.objectContaining({ event: 'crossed', rate: '0.0007', previousRate: '0.0002' }),
		]);
		expect((await pollAt(restarted, '0.0008')).emitted).toBeNull();
		// A restart from the state saved at that crossing, the rate still above: nothing repeated.
		const once = runner(sandbox(), true, restarted.savedStaticData());
		expect((await pollAt(once, '0.0008')).emitted).toBeNull();
	});

	it('without it: the return is not saved, so that rise after the restart is not seen (the documented limit)', async () => {
		const first = runner(sandbox(), false);
		await pollAt(first, '0.0001');
		expect((await pollAt(first, '0.0006')).items).toHaveLength(1);
		const saved = first.savedStaticData();
		first.markSaved();
		expect((await pollAt(first, '0.0002')).emitted).toBeNull();
		// The return changed the state in memory only: n8n has nothing new saved.
		expect(first.staticDataChanged()).toBe(true);
		expect(first.nodeStaticData().beyond).toBe(false);
		const restarted = runner(sandbox(), false, saved);
		const rose = await pollAt(restarted, '0.0007');
		expect(paths(rose.requests)).toEqual([RATE_PATH]);
		expect(rose.emitted).toBeNull();
		// Had n8n kept running, that rise was a crossing.
		expect((await pollAt(first, '0.0007')).items).toHaveLength(1);
	});
});

describe('Funding Rate Crosses a Threshold: the settled rates since the saved state, every one', () => {
	// About 12.4 days a funding period: 1,200 settled periods fit since the epoch.
	const INTERVAL = 2 ** 30;
	const sandbox = useSandbox({
		rateLimit: false,
		requestRates: false,
		fundingIntervalMs: INTERVAL,
		behaviour: { fundingHistoryIds: 'perContract' },
	});
	/** A rate in millionths: the sandbox's seeded rates have at most 6 decimals. */
	const micros = (rate: string) => Math.round(Number(rate) * 1e6);
	const beyond = (rate: string) => micros(rate) > 500;

	/**
	 * The static data of a poll in period `period` (seen rate: its seeded rate), as n8n saved it at
	 * that poll's emit, with `wasBeyond` as that poll saw the side.
	 */
	async function savedAt(period: number, wasBeyond: boolean): Promise<IDataObject> {
		const baseline = runner(sandbox(), false);
		await baseline.poll();
		const saved = baseline.savedStaticData();
		const [key] = Object.keys(saved).filter((name) => name.startsWith('node:'));
		saved[key] = {
			version: 1,
			query: QUERY,
			beyond: wasBeyond,
			rate: defaultRate(BTC, period),
			nextFundingTime: String((period + 1) * INTERVAL),
		};
		return saved;
	}

	/** The changes of side the node should report walking periods `from`..`to` from `wasBeyond`. */
	function changesOver(from: number, to: number, wasBeyond: boolean, previousRate: string) {
		const changes: IDataObject[] = [];
		let side = wasBeyond;
		let previous = previousRate;
		for (let period = from; period <= to; period++) {
			const rate = defaultRate(BTC, period);
			if (beyond(rate) !== side) {
				changes.push({
					event: beyond(rate) ? 'crossed' : 'back',
					rate,
					previousRate: previous,
					nextFundingTime: String((period + 1) * INTERVAL),
				});
			}
			side = beyond(rate);
			previous = rate;
		}
		return changes;
	}

	const picked = (items: Array<{ json: IDataObject }>) =>
		items.map(({ json }) => ({
			event: json.event,
			rate: json.rate,
			previousRate: json.previousRate,
			nextFundingTime: json.nextFundingTime,
		}));

	describe.each(['inclusive', 'exclusive'] as const)('a service reading endId as %s', (reading) => {
		beforeEach(() => {
			sandbox().futures.seedFundingHistory(1200);
			sandbox().setBehaviour({ fundingHistoryEndId: reading });
		});

		it.each([true, false])(
			'150 periods since the saved state: every change of side, once, oldest first (returns too: %s)',
			async (fireWhenBack) => {
				const current = Math.floor(sandbox().now() / INTERVAL);
				const period = current - 150;
				// The saved poll saw the rate beyond; it came back before its period settled, then
				// went on as seeded: the returns and crossings since are all in the settled rates.
				const saved = await savedAt(period, true);
				const expected = changesOver(period, current, true, defaultRate(BTC, period));
				expect(expected.filter((change) => change.event === 'crossed').length).toBeGreaterThan(1);
				const restarted = runner(sandbox(), fireWhenBack, saved);
				const caughtUp = await pollCounting(sandbox(), restarted);
				expect(caughtUp.error).toBeUndefined();
				expect(picked(caughtUp.items)).toEqual(
					expected.filter((change) => fireWhenBack || change.event === 'crossed'),
				);
				// Two pages reach back to the saved period's settlement: endId the oldest id read.
				expect(paths(caughtUp.requests)).toEqual([RATE_PATH, HISTORY_PATH, HISTORY_PATH]);
				const endIds = caughtUp.requests
					.slice(1)
					.map((request) => new URLSearchParams(request.query).get('endId'));
				expect(endIds).toEqual([null, '1101']);
				// The state is the current rate's; the next poll reads the rate only.
				expect(restarted.nodeStaticData()).toMatchObject({
					beyond: beyond(defaultRate(BTC, current)),
					rate: defaultRate(BTC, current),
					nextFundingTime: String((current + 1) * INTERVAL),
				});
				expect(paths((await pollCounting(sandbox(), restarted)).requests)).toEqual([RATE_PATH]);
			},
		);

		it('more than 1,000 settlements since: the newest 1,000 are read, the older ones are not emitted', async () => {
			const current = Math.floor(sandbox().now() / INTERVAL);
			const period = current - 1100;
			const saved = await savedAt(period, false);
			const restarted = runner(sandbox(), true, saved);
			const caughtUp = await pollCounting(sandbox(), restarted);
			expect(caughtUp.error).toBeUndefined();
			// The oldest read is the settlement of period current - 1000; the walk starts there from the
			// saved side and rate.
			expect(picked(caughtUp.items)).toEqual(
				changesOver(current - 1000, current, false, defaultRate(BTC, period)),
			);
			const history = caughtUp.requests.filter((request) => request.path === HISTORY_PATH);
			// 1,000 rates: pages of 100 new ones (read as "below") or of 99 new and the one before.
			expect(history).toHaveLength(reading === 'inclusive' ? 11 : 10);
		});
	});
});
