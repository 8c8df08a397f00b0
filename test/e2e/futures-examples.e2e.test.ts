/**
 * The futures examples (node version 2, resource Futures) in a real n8n 2.41.1 (`n8n execute`,
 * each through a Manual Trigger variant of the shipped workflow), package installed from
 * `npm pack`, sandbox on loopback with fixed prices (`market.moving: false`: BTC 50000, ETH 3000,
 * SOL 150) and positions and funding rates given first with `sb.futures`:
 * - funding rate alert: Get Positions → Get Funding Rate per position → Code (rate above 0.05 %,
 *   exact) → Set (message with the estimated next fee);
 * - daily funding fee report: Get Funding Fees (yesterday, every contract, Return All) → Code
 *   (totals per symbol and in all) → CSV;
 * - liquidation alert: Get Positions → Code (mark within 10 % of the liquidation price, cross
 *   margin skipped) → Set (message).
 * Every output item is compared whole, decimals exactly as strings. runWorkflow checks after each
 * run that the sandbox (the exchange's 5 query requests a second per key) refused none.
 *
 * n8n runs with GENERIC_TIMEZONE=UTC here (tools/n8n/environment.ts): "yesterday" is the UTC day.
 */
import * as fs from 'fs';
import * as path from 'path';

import {
	FUTURES_EXAMPLES,
	NODE_TYPES,
	findNode,
	loadFuturesExample,
	withManualTrigger,
	type FuturesExampleKey,
	type Workflow,
} from '../../tools/n8n/examples';
import { setUpN8nWithSandbox, type E2eFixture } from '../../tools/n8n/fixture';
import { getNodeItems } from '../../tools/n8n/run-data';
import { expectWorkflowOk, runWorkflow, type CheckedRun } from '../support/e2eRuns';
import { describeE2E } from '../support/describe-e2e';
import { expectExampleShape } from '../support/examples';

const RATE = FUTURES_EXAMPLES.futuresFundingRateAlert;
const REPORT = FUTURES_EXAMPLES.futuresFundingFeeReport;
const LIQUIDATION = FUTURES_EXAMPLES.futuresLiquidationAlert;

const RATE_ID = 'tsFutFundRateM01';
const REPORT_ID = 'tsFutFeeReportM1';
const LIQUIDATION_ID = 'tsFutLiquidAlrM1';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The sandbox's default funding interval (8 hours), settlements at 00:00, 08:00, 16:00 UTC. */
const FUNDING_INTERVAL = 8 * HOUR;

const BTC = 'BTCUSDT-PERPETUAL';
const ETH = 'ETHUSDT-PERPETUAL';
const SOL = 'SOLUSDT-PERPETUAL';
const XRP = 'XRPUSDT-PERPETUAL';

/** RFC 4180 CSV (quoted cells, doubled quotes, CRLF or LF) into rows of cells. */
function parseCsv(text: string): string[][] {
	const rows: string[][] = [];
	let row: string[] = [];
	let cell = '';
	let quoted = false;
	for (let i = 0; i < text.length; i++) {
		const c = text[i];
		if (quoted) {
			if (c === '"' && text[i + 1] === '"') {
				cell += '"';
				i++;
			} else if (c === '"') quoted = false;
			else cell += c;
		} else if (c === '"') quoted = true;
		else if (c === ',') {
			row.push(cell);
			cell = '';
		} else if (c === '\n' || c === '\r') {
			if (c === '\r' && text[i + 1] === '\n') i++;
			row.push(cell);
			rows.push(row);
			row = [];
			cell = '';
		} else cell += c;
	}
	if (cell !== '' || row.length > 0) {
		row.push(cell);
		rows.push(row);
	}
	return rows.filter((r) => !(r.length === 1 && r[0] === ''));
}

/** "2026-01-31 08:00 UTC": how the examples' messages write a time (Luxon, n8n's timezone UTC). */
function utcMinute(ms: number): string {
	return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

describeE2E(
	'futures examples in a real n8n: funding rate alert, funding fee report, liquidation alert',
	() => {
		let fx: E2eFixture;
		/** The sandbox's base clock runs this many ms from the real one (0 whenever n8n sends). */
		let clockShift = 0;

		beforeAll(async () => {
			const manual = (key: FuturesExampleKey, id: string): Workflow =>
				withManualTrigger(loadFuturesExample(key), FUTURES_EXAMPLES[key].trigger, id);
			fx = await setUpN8nWithSandbox({
				prefix: 'n8n-e2e-futures-examples-',
				workflows: [
					...(Object.keys(FUTURES_EXAMPLES) as FuturesExampleKey[]).map(loadFuturesExample),
					manual('futuresFundingRateAlert', RATE_ID),
					manual('futuresFundingFeeReport', REPORT_ID),
					manual('futuresLiquidationAlert', LIQUIDATION_ID),
				],
				sandbox: { market: { moving: false }, now: () => Date.now() + clockShift },
			});
		});

		afterAll(async () => {
			await fx?.cleanup();
		});

		beforeEach(() => {
			clockShift = 0;
			fx.sb.reset();
		});

		async function run(workflowId: string): Promise<CheckedRun> {
			const result = await runWorkflow(fx, workflowId);
			expectWorkflowOk(result, workflowId);
			return result;
		}

		function requestsTo(futuresPath: string) {
			return fx.sb.ledger.requests.filter((r) => r.path === `/api/v2/futures/${futuresPath}`);
		}

		function ran(result: CheckedRun, node: string): boolean {
			return result.run.data.resultData.runData[node] !== undefined;
		}

		test('the three examples: fixed ids, inactive, the sandbox credential, a Schedule Trigger, the Futures operations on version 2, a note on what to change and the timezone (UTC)', () => {
			const expected: Record<FuturesExampleKey, Array<[string, Record<string, unknown>]>> = {
				futuresFundingRateAlert: [
					[
						RATE.positions,
						{
							resource: 'futures',
							operation: 'getPositions',
							symbol: { __rl: true, mode: 'list', value: '' },
						},
					],
					[
						RATE.rates,
						{
							resource: 'futures',
							operation: 'getFundingRate',
							symbol: { __rl: true, mode: 'id', value: '={{ $json.symbol }}' },
						},
					],
				],
				futuresFundingFeeReport: [
					[
						REPORT.fees,
						{
							resource: 'futures',
							operation: 'getFundingFees',
							symbol: { __rl: true, mode: 'list', value: '' },
							startTime: '={{ $today.minus({ days: 1 }).toISO() }}',
							endTime: '={{ $today.toISO() }}',
							returnAll: true,
						},
					],
				],
				futuresLiquidationAlert: [
					[
						LIQUIDATION.positions,
						{
							resource: 'futures',
							operation: 'getPositions',
							symbol: { __rl: true, mode: 'list', value: '' },
						},
					],
				],
			};
			for (const key of Object.keys(FUTURES_EXAMPLES) as FuturesExampleKey[]) {
				const workflow = loadFuturesExample(key);
				expect(workflow.id).toBe(FUTURES_EXAMPLES[key].id);
				expectExampleShape(workflow, expected[key].length);
				expect(findNode(workflow, FUTURES_EXAMPLES[key].trigger).type).toBe(
					'n8n-nodes-base.scheduleTrigger',
				);
				for (const [name, parameters] of expected[key]) {
					const node = findNode(workflow, name);
					expect({ name, type: node.type, typeVersion: node.typeVersion }).toEqual({
						name,
						type: NODE_TYPES.action,
						typeVersion: 2,
					});
					expect(node.parameters).toEqual(parameters);
				}
				// Timezone: UTC, set in the workflow's settings, and the note says so.
				expect(workflow.settings?.timezone).toBe('UTC');
				const notes = workflow.nodes.filter((n) => n.type === 'n8n-nodes-base.stickyNote');
				expect(notes).toHaveLength(1);
				expect(String(notes[0].parameters.content)).toMatch(/\*\*Change\*\*/);
				expect(String(notes[0].parameters.content)).toMatch(/\*\*UTC\*\*.*Settings → Timezone/);
			}
			expect(
				findNode(loadFuturesExample('futuresFundingFeeReport'), REPORT.fees).alwaysOutputData,
			).toBe(true);
		});

		test('funding rate alert: the held contracts whose rate is above 0.05 % (exactly: 0.0005 is not), each with its position, the rate in % and the estimated fee, exact', async () => {
			const sb = fx.sb;
			sb.futures.fill({ symbol: BTC, side: 'BUY', quantity: '0.2' });
			sb.futures.fill({ symbol: ETH, side: 'BUY', quantity: '1.5' });
			sb.futures.fill({ symbol: SOL, side: 'BUY', quantity: '10' });
			sb.futures.setFundingRates(BTC, ['0.0006']);
			// exactly the threshold: not above
			sb.futures.setFundingRates(ETH, ['0.0005']);
			// above by 10^-20: as a JavaScript number it is 0.0005, not above
			sb.futures.setFundingRates(SOL, ['0.00050000000000000001']);
			// no position: not asked
			sb.futures.setFundingRates(XRP, ['0.001']);
			expect(
				sb.futures.positions().map((p) => [p.symbol, p.baseQty, p.markPrice, p.positionSide]),
			).toEqual([
				[BTC, '0.2', '50000', 'LONG'],
				[ETH, '1.5', '3000', 'LONG'],
				[SOL, '10', '150', 'LONG'],
			]);

			const result = await run(RATE_ID);

			const [ratesRequest] = requestsTo('fundingRate');
			const next = (Math.floor(ratesRequest.at / FUNDING_INTERVAL) + 1) * FUNDING_INTERVAL;
			expect(getNodeItems(result.run, RATE.rates)).toEqual([
				{ symbol: BTC, rate: '0.0006', nextFundingTime: String(next) },
				{ symbol: ETH, rate: '0.0005', nextFundingTime: String(next) },
				{ symbol: SOL, rate: '0.00050000000000000001', nextFundingTime: String(next) },
			]);
			const at = utcMinute(next);
			expect(getNodeItems(result.run, RATE.message)).toEqual([
				{
					symbol: BTC,
					positionSide: 'LONG',
					positionSize: '0.2',
					baseAsset: 'BTC',
					markPrice: '50000',
					fundingRate: '0.0006',
					fundingRatePercent: '0.06',
					estimatedFee: '-6',
					feeAsset: 'USDT',
					nextFundingTime: String(next),
					nextFundingAt: at,
					message: `${BTC}: funding rate 0.06% (above 0.05%). Your LONG position of 0.2 BTC at mark price 50000: estimated next fee -6 USDT (negative: you pay) at ${at}.`,
				},
				{
					symbol: SOL,
					positionSide: 'LONG',
					positionSize: '10',
					baseAsset: 'SOL',
					markPrice: '150',
					fundingRate: '0.00050000000000000001',
					fundingRatePercent: '0.050000000000000001',
					estimatedFee: '-0.750000000000000015',
					feeAsset: 'USDT',
					nextFundingTime: String(next),
					nextFundingAt: at,
					message: `${SOL}: funding rate 0.050000000000000001% (above 0.05%). Your LONG position of 10 SOL at mark price 150: estimated next fee -0.750000000000000015 USDT (negative: you pay) at ${at}.`,
				},
			]);

			// One positions read, one rate read per position (none for XRP), signed GETs, all answered.
			expect(requestsTo('positions')).toHaveLength(1);
			const rates = requestsTo('fundingRate');
			expect(rates.map((r) => new URLSearchParams(r.query).get('symbol'))).toEqual([BTC, ETH, SOL]);
			for (const r of [...requestsTo('positions'), ...rates]) {
				expect({ method: r.method, status: r.status }).toEqual({ method: 'GET', status: 200 });
				expect(r.query).toMatch(/(^|&)signature=[0-9a-f]{64}(&|$)/);
			}
			expect(fx.sb.rateLimitStats()).toEqual({ rateLimited: 0, intoSuspension: 0 });
		});

		test('funding rate alert without positions: no rate is asked, no message', async () => {
			fx.sb.futures.setFundingRates(BTC, ['0.0009']);
			const result = await run(RATE_ID);
			expect(getNodeItems(result.run, RATE.positions)).toEqual([]);
			expect(ran(result, RATE.message)).toBe(false);
			expect(requestsTo('fundingRate')).toHaveLength(0);
		});

		test('daily funding fee report: yesterday’s fees (00:00 to 00:00 UTC) per symbol and in all, exact, as funding-fees-<yesterday>.csv; the 00:00 settlement of today is not counted', async () => {
			// Not across a midnight: the day n8n reads must be the day seeded here.
			const intoDay = Date.now() % DAY;
			if (intoDay > DAY - 60_000) await new Promise((r) => setTimeout(r, DAY - intoDay + 1_000));
			const today = Math.floor(Date.now() / DAY) * DAY;
			const yesterday = today - DAY;
			// Positions opened at 23:00 the day before yesterday (the sandbox's clock set back), with
			// a rate for each settlement since: yesterday 00:00, 08:00, 16:00, today 00:00 (and after).
			clockShift = yesterday - HOUR - Date.now();
			fx.sb.reset();
			fx.sb.futures.fill({ symbol: BTC, side: 'BUY', quantity: '0.2' });
			fx.sb.futures.fill({ symbol: ETH, side: 'BUY', quantity: '1.5' });
			fx.sb.futures.setFundingRates(BTC, ['0.0001', '-0.00025', '0.000123456789', '0.0009']);
			fx.sb.futures.setFundingRates(ETH, ['0.0003', '0.0003', '0.00000001', '0.0009']);
			clockShift = 0;
			fx.sb.futures.settleNow();

			const result = await run(REPORT_ID);

			// The node: every fee of [yesterday 00:00, today 00:00], both ends included (the service's
			// range), today's 00:00 one too; fee = −(size × mark × rate).
			const fees = getNodeItems(result.run, REPORT.fees);
			const fee = (
				symbol: string,
				time: number,
				size: string,
				mark: string,
				rate: string,
				f: string,
			) => ({
				symbol,
				fundingTime: String(time),
				positionSide: 'LONG',
				positionSize: size,
				markPrice: mark,
				fundingRate: rate,
				fee: f,
				feeAsset: 'USDT',
			});
			const byTime = (a: Record<string, unknown>, b: Record<string, unknown>) =>
				`${String(a.symbol)} ${String(a.fundingTime)}`.localeCompare(
					`${String(b.symbol)} ${String(b.fundingTime)}`,
				);
			expect([...fees].sort(byTime)).toEqual([
				fee(BTC, yesterday, '0.2', '50000', '0.0001', '-1'),
				fee(BTC, yesterday + 8 * HOUR, '0.2', '50000', '-0.00025', '2.5'),
				fee(BTC, yesterday + 16 * HOUR, '0.2', '50000', '0.000123456789', '-1.23456789'),
				fee(BTC, today, '0.2', '50000', '0.0009', '-9'),
				fee(ETH, yesterday, '1.5', '3000', '0.0003', '-1.35'),
				fee(ETH, yesterday + 8 * HOUR, '1.5', '3000', '0.0003', '-1.35'),
				fee(ETH, yesterday + 16 * HOUR, '1.5', '3000', '0.00000001', '-0.000045'),
				fee(ETH, today, '1.5', '3000', '0.0009', '-4.05'),
			]);
			const date = new Date(yesterday).toISOString().slice(0, 10);
			expect(getNodeItems(result.run, REPORT.totals)).toEqual([
				{ date, symbol: BTC, settlements: 3, totalFee: '0.26543211', feeAsset: 'USDT' },
				{ date, symbol: ETH, settlements: 3, totalFee: '-2.700045', feeAsset: 'USDT' },
				{ date, symbol: 'TOTAL', settlements: 6, totalFee: '-2.43461289', feeAsset: 'USDT' },
			]);

			// The requests: every contract's fees over that day, in milliseconds.
			const requests = requestsTo('historyFundingFees');
			expect(requests.map((r) => new URLSearchParams(r.query).get('symbol')).sort()).toEqual(
				[BTC, ETH, SOL, XRP].sort(),
			);
			for (const r of requests) {
				const q = new URLSearchParams(r.query);
				expect({ start: q.get('startTime'), end: q.get('endTime'), status: r.status }).toEqual({
					start: String(yesterday),
					end: String(today),
					status: 200,
				});
			}

			// The file.
			const [file] = result.run.data.resultData.runData[REPORT.csv][0].data!.main![0]!;
			const binary = (
				file as { binary?: { data?: { id?: string; fileName?: string; mimeType?: string } } }
			).binary?.data;
			expect(binary).toMatchObject({ fileName: `funding-fees-${date}.csv`, mimeType: 'text/csv' });
			const text = fs
				.readFileSync(
					path.join(fx.userFolder, '.n8n', 'storage', binary!.id!.slice('filesystem-v2:'.length)),
					'utf8',
				)
				.replace(/^\uFEFF/, '');
			expect(parseCsv(text)).toEqual([
				['date', 'symbol', 'settlements', 'totalFee', 'feeAsset'],
				[date, BTC, '3', '0.26543211', 'USDT'],
				[date, ETH, '3', '-2.700045', 'USDT'],
				[date, 'TOTAL', '6', '-2.43461289', 'USDT'],
			]);
		});

		test('daily funding fee report on a day without fees: one TOTAL row of 0', async () => {
			const result = await run(REPORT_ID);
			const date = new Date(Math.floor(Date.now() / DAY) * DAY - DAY).toISOString().slice(0, 10);
			expect(getNodeItems(result.run, REPORT.totals)).toEqual([
				{ date, symbol: 'TOTAL', settlements: 0, totalFee: '0', feeAsset: 'USDT' },
			]);
			expect(ran(result, REPORT.csv)).toBe(true);
		});

		test('liquidation alert: a position exactly 10 % from its liquidation price is in, cross-margin positions (liquidation price "0") are skipped', async () => {
			// ISOLATED, leverage 5: liquidation = avgPrice × (1 − 1/5 + 0.025) down to the tick,
			// 54545.5 × 0.825 = 45000.0375 → 45000: mark 50000 is exactly 10 % away.
			fx.sb.futures.fill({ symbol: BTC, side: 'BUY', quantity: '0.2', price: '54545.5' });
			fx.sb.futures.fill({ symbol: ETH, side: 'BUY', quantity: '1.5' });
			fx.sb.futures.fill({ symbol: SOL, side: 'BUY', quantity: '10' });
			expect(
				fx.sb.futures.positions().map((p) => [p.symbol, p.marginType, p.liquidationPrice]),
			).toEqual([
				[BTC, 'ISOLATED', '45000'],
				[ETH, 'CROSS', '0'],
				[SOL, 'CROSS', '0'],
			]);

			const result = await run(LIQUIDATION_ID);

			const [btc] = fx.sb.futures.positions();
			expect(getNodeItems(result.run, LIQUIDATION.message)).toEqual([
				{
					symbol: BTC,
					positionSide: 'LONG',
					positionSize: '0.2',
					baseAsset: 'BTC',
					marginType: 'ISOLATED',
					leverage: '5',
					markPrice: '50000',
					liquidationPrice: '45000',
					distancePercent: '10',
					margin: btc.margin,
					unrealizedPnL: btc.unrealizedPnL,
					quoteAsset: 'USDT',
					message: `${BTC}: mark price 50000 is 10% from the liquidation price 45000 (LONG 0.2 BTC, ISOLATED, leverage 5).`,
				},
			]);
			expect(requestsTo('positions')).toHaveLength(1);
		});

		test('liquidation alert: 10.0002 % away is out (exact comparison), no message', async () => {
			// 54545.4 × 0.825 = 44999.955 → 44999.9: 5000.1 / 50000 = 10.0002 %.
			fx.sb.futures.fill({ symbol: BTC, side: 'BUY', quantity: '0.2', price: '54545.4' });
			fx.sb.futures.fill({ symbol: ETH, side: 'BUY', quantity: '1.5' });
			expect(fx.sb.futures.positions()[0].liquidationPrice).toBe('44999.9');

			const result = await run(LIQUIDATION_ID);

			expect(getNodeItems(result.run, LIQUIDATION.positions)).toHaveLength(2);
			expect(getNodeItems(result.run, LIQUIDATION.check)).toEqual([]);
			expect(ran(result, LIQUIDATION.message)).toBe(false);
		});
	},
);
