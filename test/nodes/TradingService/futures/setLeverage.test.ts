import { runCounting } from '../../../support/runs';
import { useSandbox } from '../../../support/sandbox';
import { WRITE_PATHS, queryOf, sent } from './futuresWritesSupport';
import { BTC, ETH, jsonOf, runFutures } from './support';

const sandbox = useSandbox({ rateLimit: false, requestRates: false });
const { leverage: LEVERAGE } = WRITE_PATHS;

const leverageNow = async (symbol = BTC) =>
	jsonOf(await runFutures(sandbox(), 'getLeverage', { symbol }))[0].leverage;

describe('Futures > Set Leverage', () => {
	it('sets a contract’s leverage: one POST (an order request), outcome placed; Get Leverage shows it', async () => {
		const run = await runFutures(sandbox(), 'setLeverage', { symbol: BTC, leverage: 7 });
		expect(run.error).toBeUndefined();
		expect(jsonOf(run)).toEqual([{ outcome: 'placed', symbol: BTC, leverage: '7' }]);
		const [post] = sent(run.requests, LEVERAGE, 'POST');
		expect([queryOf(post).get('symbol'), queryOf(post).get('leverage')]).toEqual([BTC, '7']);
		expect(run.requests).toHaveLength(1);
		expect(String(await leverageNow())).toBe('7');
	});

	it.each([
		['0', 0],
		['2.5', 2.5],
		['text', '={{ "high" }}'],
	])(
		'Leverage %s: refused before any request, naming the field and the range',
		async (_case, leverage) => {
			const run = await runFutures(
				sandbox(),
				'setLeverage',
				{ symbol: BTC, leverage },
				{ continueOnFail: true },
			);
			expect(jsonOf(run)[0]).toMatchObject({ outcome: 'rejected' });
			expect(String(jsonOf(run)[0].error)).toMatch(/^Leverage: .* is not a leverage$/);
			expect(String(jsonOf(run)[0].description)).toContain('whole number from 1');
			expect(run.requests).toHaveLength(0);
		},
	);

	it('Leverage 21: sent, the range being the exchange’s; its refusal (0001) reported rejected', async () => {
		const run = await runFutures(
			sandbox(),
			'setLeverage',
			{ symbol: BTC, leverage: 21 },
			{ continueOnFail: true },
		);
		expect(jsonOf(run)[0]).toMatchObject({ outcome: 'rejected' });
		expect(JSON.stringify(jsonOf(run)[0])).toMatch(/0001/);
		const [post] = sent(run.requests, LEVERAGE, 'POST');
		expect(queryOf(post).get('leverage')).toBe('21');
		expect(String(await leverageNow())).not.toBe('21');
	});

	it('Guardrails: Max Leverage and Allowed Contracts refuse before any request', async () => {
		const over = await runFutures(
			sandbox(),
			'setLeverage',
			{ symbol: BTC, leverage: 10, guardrails: { maxLeverage: 5 } },
			{ continueOnFail: true },
		);
		expect(jsonOf(over)[0].error).toBe('Leverage: 10 is above Max Leverage (5)');
		const elsewhere = await runFutures(
			sandbox(),
			'setLeverage',
			{ symbol: ETH, leverage: 3, guardrails: { allowedContracts: BTC } },
			{ continueOnFail: true },
		);
		expect(jsonOf(elsewhere)[0].error).toBe(`Symbol: ${ETH} is not in Allowed Contracts (${BTC})`);
		expect([...over.requests, ...elsewhere.requests]).toHaveLength(0);
		const within = await runFutures(sandbox(), 'setLeverage', {
			symbol: BTC,
			leverage: 5,
			guardrails: { maxLeverage: 5, allowedContracts: `${BTC}, ${ETH}` },
		});
		expect(jsonOf(within)[0].outcome).toBe('placed');
	});

	it('a lost answer: the leverage read back (GET leverage) shows it set, so placed; sent once', async () => {
		sandbox().setFaults({
			rules: [{ kind: 'dropAfter', times: 1, path: LEVERAGE, method: 'POST' }],
		});
		const run = await runFutures(sandbox(), 'setLeverage', { symbol: BTC, leverage: 12 });
		expect(run.error).toBeUndefined();
		expect(jsonOf(run)[0]).toMatchObject({
			outcome: 'placed',
			leverage: '12',
			confirmedByLookup: true,
		});
		expect(sent(run.requests, LEVERAGE, 'POST')).toHaveLength(1);
		expect(sent(run.requests, LEVERAGE, 'GET')).toHaveLength(1);
	});

	it('a request lost before it was applied: not set once no attempt can be applied, so sent once more', async () => {
		sandbox().setFaults({
			rules: [{ kind: 'unknownBefore', times: 1, path: LEVERAGE, method: 'POST' }],
		});
		const run = await runCounting(sandbox(), {
			parameters: { resource: 'futures', operation: 'setLeverage', symbol: BTC, leverage: 4 },
			node: { typeVersion: 2 },
			credentials: { recvWindow: 1500 },
		});
		expect(run.error).toBeUndefined();
		expect(jsonOf(run)[0]).toMatchObject({ outcome: 'placed', leverage: '4' });
		expect(sent(run.requests, LEVERAGE, 'POST')).toHaveLength(2);
		expect(String(await leverageNow())).toBe('4');
	});

	it('a lost answer the read-back cannot settle: unknown, saying where to look; not sent again', async () => {
		sandbox().setFaults({
			rules: [
				{ kind: 'dropAfter', times: 1, path: LEVERAGE, method: 'POST' },
				{ kind: 'ipBan', times: 1, path: LEVERAGE, method: 'GET' },
			],
		});
		const run = await runFutures(
			sandbox(),
			'setLeverage',
			{ symbol: BTC, leverage: 9 },
			{ continueOnFail: true },
		);
		expect(jsonOf(run)[0].outcome).toBe('unknown');
		expect(String(jsonOf(run)[0].error)).toMatch(
			/^Unknown outcome: the leverage 9 for BTCUSDT-PERPETUAL/,
		);
		expect(String(jsonOf(run)[0].description)).toContain('Futures > Get Leverage');
		expect(sent(run.requests, LEVERAGE, 'POST')).toHaveLength(1);
	});
});
