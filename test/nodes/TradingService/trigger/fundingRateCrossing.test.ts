/**
 * Funding Rate Crosses a Threshold (polling trigger, version 2) against the sandbox, through
 * n8n-core's real poll path: the parameters, the baseline, one item per crossing (not per poll),
 * exact decimals, a failed poll, Fetch Test Event, and a restart of n8n (a runner started from the
 * static data n8n saved at the last emit) with crossings while it was down.
 */
import type { IDataObject } from 'n8n-workflow';

import { TradingServiceTrigger } from '../../../../nodes/TradingService/TradingServiceTrigger.node';
import {
	isBeyond,
	parseThreshold,
	ratePercent,
	readCrossingSettings,
} from '../../../../nodes/TradingService/trigger/fundingRate/crossing';
import { readCurrentRate } from '../../../../nodes/TradingService/trigger/fundingRate';
import type { ServiceClient } from '../../../../nodes/TradingService/transport';
import type { Sandbox } from '../../../../sandbox';
import type { PollRunner } from '../../../../tools/harness/poll';
import { FlakyCredentialsHelper, pollCounting, triggerRunner } from '../../../support/trigger';
import { useSandbox } from '../../../support/sandbox';
import { node, pollFunctions } from './support';

const BTC = 'BTCUSDT-PERPETUAL';
const RATE_PATH = '/api/v2/futures/fundingRate';
const HISTORY_PATH = '/api/v2/futures/historyFundingRate';

/** The event's parameters: Rises Above 0.05 % on BTC unless told otherwise. */
function crossing(overrides: IDataObject = {}): IDataObject {
	return {
		event: 'fundingRateCrossing',
		symbol: { __rl: true, mode: 'list', value: BTC },
		crossing: 'above',
		threshold: '0.05',
		...overrides,
	};
}

function runner(sandbox: Sandbox, parameters: IDataObject = crossing(), staticData?: IDataObject) {
	return triggerRunner(sandbox, { typeVersion: 2, parameters, staticData });
}

const paths = (requests: Array<{ path: string }>) => requests.map((request) => request.path);

describe('Funding Rate Crosses a Threshold: the description', () => {
	const description = new TradingServiceTrigger().description;
	const named = (name: string) => description.properties.filter((p) => p.name === name);
	const values = (property: { options?: unknown }) =>
		(property.options as Array<{ value: unknown }>).map((option) => option.value);

	it('is an event of version 2 only (as Futures Order Filled), named in the subtitle', () => {
		const [v1, v2] = named('event');
		expect(v1.displayOptions).toEqual({ show: { '@version': [1] } });
		expect(values(v1)).not.toContain('fundingRateCrossing');
		expect(v2.displayOptions).toEqual({ show: { '@version': [2] } });
		expect(values(v2)).toEqual(
			[...values(v1), 'fundingRateCrossing', 'futuresOrderFilled', 'depositReceived'].sort(
				(a, b) => {
					const name = (value: unknown) =>
						(v2.options as Array<{ name: string; value: unknown }>).find((o) => o.value === value)!
							.name;
					return name(a).localeCompare(name(b));
				},
			),
		);
		expect(description.subtitle).toContain(
			'"fundingRateCrossing":"Funding Rate Crosses a Threshold"',
		);
	});

	it('asks for Contract (the contracts picker), Direction and Threshold; hides the history fields', () => {
		const shown = { show: { '@version': [2], event: ['fundingRateCrossing'] } };
		const [contract] = named('symbol');
		expect(contract).toMatchObject({
			displayName: 'Contract',
			type: 'resourceLocator',
			required: true,
		});
		expect(contract.displayOptions).toEqual(shown);
		expect(JSON.stringify(contract.modes)).toContain('searchContracts');
		expect(named('crossing')[0]).toMatchObject({ default: 'above', displayOptions: shown });
		expect(values(named('crossing')[0])).toEqual(['above', 'below']);
		expect(named('threshold')[0]).toMatchObject({ type: 'string', displayOptions: shown });
		expect(named('fireWhenBack')[0]).toMatchObject({
			displayName: 'Also Fire When the Rate Comes Back',
			type: 'boolean',
			default: false,
			displayOptions: shown,
		});
		expect(named('accountType')[0].displayOptions?.hide?.event).toContain('fundingRateCrossing');
		expect(named('direction')[0].displayOptions?.show?.event).not.toContain('fundingRateCrossing');
		for (const filters of named('filters')) {
			expect(filters.displayOptions?.hide?.event).toEqual([
				'fundingRateCrossing',
				'futuresOrderFilled',
			]);
		}
		expect(named('options')[0].displayOptions?.hide?.event).toEqual(['fundingRateCrossing']);
		expect(Object.keys(new TradingServiceTrigger().methods.listSearch)).toEqual([
			'searchCoins',
			'searchContracts',
		]);
	});
});

describe('Funding Rate Crosses a Threshold: the parameters', () => {
	const settings = (overrides: IDataObject) =>
		readCrossingSettings(pollFunctions(crossing(overrides), node));

	it('takes the threshold in percent, exactly, negative allowed; the rate compares as a fraction', () => {
		expect(settings({})).toMatchObject({ symbol: BTC, crossing: 'above', threshold: '0.05' });
		expect(settings({ threshold: '0.050' }).threshold).toBe('0.05');
		expect(settings({ threshold: '-0.01', crossing: 'below' })).toMatchObject({
			threshold: '-0.01',
			crossing: 'below',
		});
		expect(settings({ threshold: 0.05 }).threshold).toBe('0.05');
		const above = settings({});
		expect(isBeyond(above, '0.0005')).toBe(false);
		expect(isBeyond(above, '0.000500000001')).toBe(true);
		expect(isBeyond(above, '0.00049999')).toBe(false);
		expect(isBeyond(above, '5e-4')).toBe(false);
		const below = settings({ threshold: '-0.01', crossing: 'below' });
		expect(isBeyond(below, '-0.0001')).toBe(false);
		expect(isBeyond(below, '-0.00010001')).toBe(true);
		expect(ratePercent('0.00051')).toBe('0.051');
		expect(ratePercent('-0.0003')).toBe('-0.03');
		expect(ratePercent('0.1')).toBe('10');
	});

	it.each([
		['', 'an empty value is not a percentage'],
		['0,05', '"0,05" is not a percentage'],
		['0.05%', '"0.05%" is not a percentage'],
		['1e-3', '"1e-3" is not a percentage'],
		[' 0.05', '" 0.05" is not a percentage'],
		['+0.05', '"+0.05" is not a percentage'],
		['.05', '".05" is not a percentage'],
		['0.00000000001', '"0.00000000001" has more than 10 decimals'],
		[0.1 + 0.2, 'the number 0.30000000000000004 may have lost digits'],
	])('refuses the threshold %j, naming the field', (threshold, problem) => {
		expect(() => settings({ threshold })).toThrow(`Threshold (%): ${problem}`);
	});

	it('says how to write a percentage without its sign', () => {
		expect(() => parseThreshold(node, '5%')).toThrow(
			expect.objectContaining({
				description: 'Enter the number without the % sign, e.g. 0.05 for 0.05 %.',
			}),
		);
	});

	it('refuses a spot pair or an empty Contract, and an unknown Direction', () => {
		expect(() => settings({ symbol: { __rl: true, mode: 'id', value: 'BTCUSDT' } })).toThrow(
			'Contract: "BTCUSDT" is not a futures contract',
		);
		expect(() => settings({ symbol: { __rl: true, mode: 'list', value: '' } })).toThrow(
			'Contract: an empty value is not a futures contract',
		);
		expect(() => settings({ crossing: 'sideways' })).toThrow(
			'Direction: "sideways" is not allowed',
		);
		expect(settings({}).fireWhenBack).toBe(false);
		expect(settings({ fireWhenBack: true }).fireWhenBack).toBe(true);
		expect(() => settings({ fireWhenBack: 'yes' })).toThrow(
			'Also Fire When the Rate Comes Back: the text "yes" is not true or false',
		);
	});
});

describe("Funding Rate Crosses a Threshold: the service's answers", () => {
	/** A client whose every request answers `body`; the requests are kept. */
	function answering(body: unknown) {
		const sent: Array<{ path: string; qs: unknown }> = [];
		const client = {
			request: async (endpoint: { path: string }, request: { qs?: unknown }) => {
				sent.push({ path: endpoint.path, qs: request.qs });
				return body;
			},
		} as unknown as ServiceClient;
		return { client, sent };
	}

	it('reads the named contract from the answer; anything else is an error that names it', async () => {
		const { client, sent } = answering([
			{ symbol: 'ETHUSDT-PERPETUAL', rate: '0.0009', nextFundingTime: '28800000' },
			{ symbol: BTC, rate: '0.0001', nextFundingTime: '28800000' },
		]);
		expect(await readCurrentRate(client, node, BTC)).toEqual({
			rate: '0.0001',
			nextFundingTime: '28800000',
		});
		expect(sent).toEqual([{ path: RATE_PATH, qs: { symbol: BTC } }]);
		await expect(readCurrentRate(answering([]).client, node, BTC)).rejects.toThrow(
			'The service listed no funding rate for BTCUSDT-PERPETUAL',
		);
		await expect(
			readCurrentRate(
				answering([{ symbol: BTC, rate: 0.0001, nextFundingTime: '1' }]).client,
				node,
				BTC,
			),
		).rejects.toThrow('funding rate of BTCUSDT-PERPETUAL is not a decimal: 0.0001');
		await expect(
			readCurrentRate(answering([{ symbol: BTC, rate: '0.0001' }]).client, node, BTC),
		).rejects.toThrow('next funding time of BTCUSDT-PERPETUAL is not a time');
		// A time sent as a number is read as its digits.
		expect(
			await readCurrentRate(
				answering([{ symbol: BTC, rate: '-0.0001', nextFundingTime: 57600000 }]).client,
				node,
				BTC,
			),
		).toEqual({ rate: '-0.0001', nextFundingTime: '57600000' });
	});
});

describe('Funding Rate Crosses a Threshold: polls', () => {
	// The default 8-hour funding interval: a test sets the rate of the period running now.
	const sandbox = useSandbox({ rateLimit: false, requestRates: false });
	const setRate = (rate: string, symbol = BTC) => sandbox().futures.setFundingRates(symbol, [rate]);

	/** Polls once at each rate; the items of each poll, and each poll's requests. */
	async function pollAt(active: PollRunner, rates: string[]) {
		const polls = [];
		for (const rate of rates) {
			setRate(rate);
			const outcome = await pollCounting(sandbox(), active);
			expect(outcome.error).toBeUndefined();
			polls.push(outcome);
		}
		return polls;
	}

	it('the first poll only remembers; then one item per crossing, none while the rate stays above, one request per poll', async () => {
		setRate('0.0006');
		const active = runner(sandbox());
		const [baseline] = await pollAt(active, ['0.0006']);
		expect(baseline.emitted).toBeNull();
		expect(paths(baseline.requests)).toEqual([RATE_PATH]);
		expect(new URLSearchParams(baseline.requests[0].query).get('symbol')).toBe(BTC);
		const nextFundingTime = String((Math.floor(sandbox().now() / 28_800_000) + 1) * 28_800_000);
		expect(active.nodeStaticData()).toEqual({
			version: 1,
			query: 'event=fundingRateCrossing;symbol=BTCUSDT-PERPETUAL;crossing=above;threshold=0.05',
			beyond: true,
			rate: '0.0006',
			nextFundingTime,
		});

		const rates = ['0.0007', '0.0005', '0.00051', '0.0008', '0.0001', '0.0001', '0.000500001'];
		const polls = await pollAt(active, rates);
		expect(polls.map((poll) => poll.items.length)).toEqual([0, 0, 1, 0, 0, 0, 1]);
		expect(polls.every((poll) => paths(poll.requests).join() === RATE_PATH)).toBe(true);
		const items = polls.flatMap((poll) => poll.items.map((item) => item.json));
		expect(items).toEqual([
			{
				symbol: BTC,
				event: 'crossed',
				rate: '0.00051',
				ratePercent: '0.051',
				threshold: '0.05',
				crossing: 'above',
				previousRate: '0.0005',
				nextFundingTime,
				detectedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
			},
			expect.objectContaining({
				rate: '0.000500001',
				ratePercent: '0.0500001',
				previousRate: '0.0001',
			}),
		]);
	});

	it('an idle poll (same rate, same side) leaves the static data untouched', async () => {
		const active = runner(sandbox());
		await pollAt(active, ['0.0001']);
		active.markSaved();
		await pollAt(active, ['0.0001', '0.0001']);
		expect(active.staticDataChanged()).toBe(false);
		await pollAt(active, ['0.0002']);
		expect(active.staticDataChanged()).toBe(true);
	});

	it('Falls Below a negative threshold', async () => {
		const active = runner(sandbox(), crossing({ crossing: 'below', threshold: '-0.01' }));
		const polls = await pollAt(active, [
			'0.0001',
			'-0.0001',
			'-0.00012',
			'-0.0002',
			'0',
			'-0.0003',
		]);
		expect(polls.map((poll) => poll.items.map((item) => item.json.rate))).toEqual([
			[],
			[],
			['-0.00012'],
			[],
			[],
			['-0.0003'],
		]);
		expect(polls[2].items[0].json).toMatchObject({
			ratePercent: '-0.012',
			threshold: '-0.01',
			crossing: 'below',
			previousRate: '-0.0001',
		});
	});

	it('a rate already above at activation is not a crossing; changing Contract, Direction or Threshold starts over', async () => {
		const first = runner(sandbox());
		await pollAt(first, ['0.0001']);
		for (const changed of [
			crossing({ threshold: '0.04' }),
			crossing({ crossing: 'below', threshold: '0.09' }),
			crossing({ symbol: { __rl: true, mode: 'id', value: 'ETHUSDT-PERPETUAL' } }),
		]) {
			sandbox().futures.setFundingRates('ETHUSDT-PERPETUAL', ['0.0006']);
			const restarted = runner(sandbox(), changed, first.savedStaticData());
			const [poll] = await pollAt(restarted, ['0.0006']);
			expect(poll.emitted).toBeNull();
			expect(restarted.nodeStaticData().query).toBe(
				`event=fundingRateCrossing;symbol=${String((changed.symbol as IDataObject).value)};crossing=${String(changed.crossing)};threshold=${String(changed.threshold)}`,
			);
		}
		// The same settings keep the state: the rise is a crossing.
		const same = runner(sandbox(), crossing({ threshold: '0.050' }), first.savedStaticData());
		const [poll] = await pollAt(same, ['0.0006']);
		expect(poll.items.map((item) => item.json.rate)).toEqual(['0.0006']);
	});

	it("a history event's state is not taken for it, and it leaves no state a history event would take", async () => {
		const funding = triggerRunner(sandbox(), { typeVersion: 2 });
		await funding.poll();
		const switched = runner(sandbox(), crossing(), funding.savedStaticData());
		const [poll] = await pollAt(switched, ['0.0009']);
		expect(poll.emitted).toBeNull();
		expect(switched.nodeStaticData().beyond).toBe(true);
		const back = triggerRunner(sandbox(), {
			typeVersion: 2,
			staticData: switched.savedStaticData(),
		});
		expect((await back.poll()).emitted).toBeNull();
		expect(back.nodeStaticData().query).toBe('flowType=32;accountType=any');
	});

	it('a bad threshold or contract fails the poll before any request, and changes nothing', async () => {
		const active = runner(sandbox(), crossing({ threshold: '5%' }));
		const outcome = await pollCounting(sandbox(), active);
		expect(outcome.error?.message).toBe('Threshold (%): "5%" is not a percentage');
		expect(outcome.requests).toEqual([]);
		expect(active.nodeStaticData()).toEqual({});
		const spot = runner(
			sandbox(),
			crossing({ symbol: { __rl: true, mode: 'id', value: 'BTCUSDT' } }),
		);
		const refused = await pollCounting(sandbox(), spot);
		expect(refused.error?.message).toBe('Contract: "BTCUSDT" is not a futures contract');
		expect(refused.requests).toEqual([]);
	});

	it('a failed poll changes nothing: the crossing is emitted once by the next poll', async () => {
		const flaky = new FlakyCredentialsHelper(sandbox());
		const active = triggerRunner(sandbox(), {
			typeVersion: 2,
			parameters: crossing(),
			credentialsHelper: flaky,
		});
		await pollAt(active, ['0.0001']);
		const before = active.nodeStaticData();
		setRate('0.0007');
		flaky.breakRequest(1);
		const failed = await pollCounting(sandbox(), active);
		expect(failed.error).toBeDefined();
		expect(failed.emitted).toBeNull();
		expect(active.nodeStaticData()).toEqual(before);
		const [next, after] = await pollAt(active, ['0.0007', '0.0007']);
		expect(next.items.map((item) => item.json)).toEqual([
			expect.objectContaining({ rate: '0.0007', previousRate: '0.0001' }),
		]);
		expect(after.emitted).toBeNull();
	});

	it('a contract the exchange does not list: its error names Contract and gives the futures hint, and changes nothing', async () => {
		const active = runner(
			sandbox(),
			crossing({ symbol: { __rl: true, mode: 'id', value: 'DOGEUSDT-PERPETUAL' } }),
		);
		const outcome = await pollCounting(sandbox(), active);
		expect(outcome.error?.message).toBe(
			'Contract: the exchange does not list the futures contract DOGEUSDT-PERPETUAL',
		);
		expect(outcome.error?.description).toContain('(code 0201)');
		expect(outcome.error?.description).toContain('Pick the contract from the Contract list');
		expect(outcome.error?.description).toContain('e.g. BTCUSDT-PERPETUAL');
		expect(outcome.error?.description).toContain('The poll changed nothing.');
		expect(outcome.error?.description).not.toMatch(/e\.g\. BTCUSDT[^-]/);
		expect(paths(outcome.requests)).toEqual([RATE_PATH]);
		expect(active.nodeStaticData()).toEqual({});
	});

	it('Fetch Test Event returns the current rate as an item, in one request, and leaves the state alone', async () => {
		const active = runner(sandbox());
		await pollAt(active, ['0.0001']);
		const before = active.nodeStaticData();
		setRate('0.00073');
		const manual = await pollCounting(sandbox(), active, 'manual');
		expect(manual.error).toBeUndefined();
		expect(paths(manual.requests)).toEqual([RATE_PATH]);
		expect(manual.items.map((item) => item.json)).toEqual([
			expect.objectContaining({
				symbol: BTC,
				event: 'crossed',
				rate: '0.00073',
				ratePercent: '0.073',
				threshold: '0.05',
				crossing: 'above',
				previousRate: '0.0001',
			}),
		]);
		expect(active.nodeStaticData()).toEqual(before);
		// The crossing is still the active poll's to emit.
		const [poll] = await pollAt(active, ['0.00073']);
		expect(poll.items).toHaveLength(1);
		// Without any state, previousRate is null; a rate not beyond is an item of the kind back.
		setRate('0.0001');
		const fresh = await pollCounting(sandbox(), runner(sandbox()), 'manual');
		expect(fresh.items[0].json).toMatchObject({
			event: 'back',
			rate: '0.0001',
			previousRate: null,
		});
	});
});

describe('Funding Rate Crosses a Threshold: a restart of n8n', () => {
	const INTERVAL = 1000;
	const sandbox = useSandbox({
		rateLimit: false,
		requestRates: false,
		fundingIntervalMs: INTERVAL,
	});
	const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

	/** Scripts the rates from the next period on; returns a function that waits into period i of them. */
	async function script(rates: string[]) {
		const now = sandbox().now();
		const start = (Math.floor(now / INTERVAL) + 1) * INTERVAL;
		await sleep(start - now + 50);
		sandbox().futures.setFundingRates(BTC, rates);
		return {
			at: async (period: number) => {
				const wait = start + period * INTERVAL + 300 - sandbox().now();
				if (wait > 0) await sleep(wait);
			},
			/** When period i of the script is settled: its nextFundingTime. */
			fundingTimeOf: (period: number) => String(start + (period + 1) * INTERVAL),
		};
	}

	it('a crossing while n8n was down fires once at the next poll; one fired before the restart is not repeated', async () => {
		//                      0         1         2         3         4         5         6
		const { at, fundingTimeOf } = await script([
			'0.0001',
			'0.0006',
			'0.0002',
			'0.0003',
			'0.0007',
			'0.0008',
			'0.0009',
		]);
		await at(0);
		const first = runner(sandbox());
		expect((await first.poll()).emitted).toBeNull();
		await at(1);
		const crossed = await pollCounting(sandbox(), first);
		expect(crossed.items.map((item) => item.json.rate)).toEqual(['0.0006']);
		// n8n saves the static data at the emit, not after a poll that emits nothing.
		const saved = first.savedStaticData();
		await at(2);
		expect((await first.poll()).emitted).toBeNull(); // back below: re-armed, not saved
		// n8n stops here; periods 3 (still below) and 4 (above again) pass while it is down.
		await at(5);
		const restarted = runner(sandbox(), crossing(), saved);
		const caughtUp = await pollCounting(sandbox(), restarted);
		expect(paths(caughtUp.requests)).toEqual([RATE_PATH, HISTORY_PATH]);
		expect(caughtUp.items.map((item) => item.json)).toEqual([
			expect.objectContaining({
				rate: '0.0007',
				previousRate: '0.0003',
				nextFundingTime: fundingTimeOf(4),
			}),
		]);
		const savedAtCatchUp = restarted.savedStaticData();
		// From then on, one request per poll; the rate stays above: nothing more.
		await at(6);
		const later = await pollCounting(sandbox(), restarted);
		expect(paths(later.requests)).toEqual([RATE_PATH]);
		expect(later.emitted).toBeNull();

		// Another restart from the state saved at that emit, the rate still above: no repeat.
		const again = runner(sandbox(), crossing(), savedAtCatchUp);
		await at(7);
		const repeat = await pollCounting(sandbox(), again);
		expect(paths(repeat.requests)).toEqual([RATE_PATH, HISTORY_PATH]);
		expect(repeat.emitted).toBeNull();
	});

	it('a restart within the funding period of the saved state reads the rate only', async () => {
		const { at } = await script(['0.0001', '0.0006']);
		await at(0);
		const first = runner(sandbox());
		await first.poll();
		const restarted = runner(sandbox(), crossing(), first.savedStaticData());
		const poll = await pollCounting(sandbox(), restarted);
		expect(paths(poll.requests)).toEqual([RATE_PATH]);
		expect(poll.emitted).toBeNull();
		await at(1);
		expect((await restarted.poll()).items.map((item) => item.json.rate)).toEqual(['0.0006']);
	});
});
