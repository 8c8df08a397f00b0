/**
 * The market-data examples in a real n8n 2.41.1 (`n8n execute`), against the sandbox's realistic
 * MENA catalogue (moving prices, real-looking symbol rules):
 * - DCA: Schedule → Get Price → Create a MARKET buy by Amount, with Max Order Amount and Fit to
 *   Symbol Rules;
 * - price alert: Schedule → Get 24h Ticker → If the 24-hour change is below a threshold → message.
 * Each runs through a Manual Trigger variant of the shipped workflow.
 */
import { DEMO_KEYS } from '../../sandbox';
import {
	MARKET_EXAMPLES,
	findNode,
	loadMarketExample,
	withManualTrigger,
	type Workflow,
} from '../../tools/n8n/examples';
import { setUpN8nWithSandbox, type E2eFixture } from '../../tools/n8n/fixture';
import { runWorkflow, type CheckedRun } from '../support/e2eRuns';
import { getNodeError, getNodeItems } from '../../tools/n8n/run-data';
import { describeE2E } from '../support/describe-e2e';
import { expectExampleShape } from '../support/examples';

const DCA = MARKET_EXAMPLES.dcaMarketBuy;
const ALERT = MARKET_EXAMPLES.priceAlert;

const DCA_ID = 'tsDcaMarketBuyM1';
/** The DCA with an amount the symbol's amount step does not divide (Fit to Symbol Rules rounds it down). */
const DCA_FIT_ID = 'tsDcaMarketBuyF1';
/** The DCA with an amount above its Max Order Amount guardrail. */
const DCA_GUARD_ID = 'tsDcaMarketBuyG1';
/** The price alert with a threshold every change is below (the alert fires). */
const ALERT_FIRES_ID = 'tsPriceAlertM001';
/** The price alert with a threshold no change is below (no alert). */
const ALERT_QUIET_ID = 'tsPriceAlertM002';

function dca(id: string, amount?: string): Workflow {
	const workflow = withManualTrigger(loadMarketExample('dcaMarketBuy'), DCA.trigger, id);
	if (amount !== undefined) findNode(workflow, DCA.buy).parameters.amount = amount;
	return workflow;
}

function alert(id: string, threshold: number): Workflow {
	const workflow = withManualTrigger(loadMarketExample('priceAlert'), ALERT.trigger, id);
	const conditions = findNode(workflow, ALERT.check).parameters.conditions as {
		conditions: Array<{ rightValue: number }>;
	};
	conditions.conditions[0].rightValue = threshold;
	return workflow;
}

describeE2E('market examples in a real n8n: DCA buy and 24h price alert', () => {
	let fx: E2eFixture;

	beforeAll(async () => {
		fx = await setUpN8nWithSandbox({
			prefix: 'n8n-e2e-market-examples-',
			workflows: [
				loadMarketExample('dcaMarketBuy'),
				loadMarketExample('priceAlert'),
				dca(DCA_ID),
				dca(DCA_FIT_ID, '25.123456789'),
				dca(DCA_GUARD_ID, '60'),
				alert(ALERT_FIRES_ID, 1000),
				alert(ALERT_QUIET_ID, -1000),
			],
			sandbox: { symbolRules: 'realistic', market: { moving: true } },
		});
	});

	afterAll(async () => {
		await fx?.cleanup();
	});

	beforeEach(() => {
		fx.sb.reset();
	});

	const run = (workflowId: string): Promise<CheckedRun> => runWorkflow(fx, workflowId);

	function requestsTo(path: string) {
		return fx.sb.ledger.requests.filter((request) => request.path === path);
	}

	test('both examples: fixed ids, inactive, the sandbox credential, a Schedule Trigger first', () => {
		for (const key of Object.keys(MARKET_EXAMPLES) as Array<keyof typeof MARKET_EXAMPLES>) {
			const workflow = loadMarketExample(key);
			expect(workflow.id).toBe(MARKET_EXAMPLES[key].id);
			expectExampleShape(workflow, key === 'dcaMarketBuy' ? 2 : 1);
			expect(findNode(workflow, MARKET_EXAMPLES[key].trigger).type).toBe(
				'n8n-nodes-base.scheduleTrigger',
			);
		}
	});

	test('DCA on version 2: a MARKET buy by Amount with its Guardrails, the symbol from the price; its note says what to change and that it runs in UTC', () => {
		const workflow = loadMarketExample('dcaMarketBuy');
		expect(workflow.settings?.timezone).toBe('UTC');
		const buy = findNode(workflow, DCA.buy);
		expect(buy.typeVersion).toBe(2);
		expect(buy.parameters).toEqual({
			resource: 'order',
			operation: 'create',
			symbol: { __rl: true, mode: 'id', value: '={{ $json.symbol }}' },
			side: 'BUY',
			type: 'MARKET',
			marketOrderBy: 'amount',
			amount: '25',
			guardrails: { maxOrderAmount: '50', fitToSymbolRules: true },
			options: {},
		});
		// The summary reads the amount from the order, not from a number written into it.
		const summary = JSON.stringify(findNode(workflow, DCA.summary).parameters);
		expect(summary).toContain('$json.reqAmount');
		expect(summary).not.toMatch(/\b25\b/);
	});

	test('DCA: the price is read with the API key and no signature, one MARKET buy of 25 USDT is placed and filled, the summary names it', async () => {
		const result = await run(DCA_ID);
		expect(result.ok).toBe(true);
		const [price] = getNodeItems(result.run, DCA.price);
		expect(price).toEqual({ symbol: 'BTCUSDT', price: expect.stringMatching(/^\d+(\.\d{1,2})?$/) });
		const [buy] = getNodeItems(result.run, DCA.buy);
		expect(buy).toMatchObject({
			outcome: 'placed',
			symbol: 'BTCUSDT',
			side: 'BUY',
			type: 'MARKET',
		});
		expect(buy.fittedToSymbolRules).toBeUndefined();
		const [summary] = getNodeItems(result.run, DCA.summary);
		expect(summary.message).toContain(`order ${String(buy.orderId)}`);
		expect(summary.message).toContain('a MARKET buy of 25 USDT of BTCUSDT');
		expect(summary.amount).toBe('25');
		expect(summary.priceBefore).toBe(price.price);

		expect(fx.sb.ledger.orders).toHaveLength(1);
		expect(fx.sb.ledger.orders[0]).toMatchObject({ side: 'BUY', type: 'MARKET' });
		const [priceRequest] = requestsTo('/quote/v1/ticker/price');
		expect(priceRequest.apiKey).toBe(DEMO_KEYS.master.apiKey);
		expect(priceRequest.query).toMatch(/(^|&)site=MENA(&|$)/);
		expect(priceRequest.query).not.toMatch(/signature=|timestamp=/);
		// The rules were read once, the same way, before the order went out.
		const rules = requestsTo('/api/v1/exchangeInfo');
		expect(rules).toHaveLength(1);
		expect(rules[0].query).not.toMatch(/signature=/);
		expect(rules[0].at).toBeLessThanOrEqual(requestsTo('/api/v1.1/spot/order')[0].at);
	});

	test('DCA with 25.123456789 USDT: Fit to Symbol Rules rounds the amount down to the symbol’s amount step, places it and says so in the item', async () => {
		const result = await run(DCA_FIT_ID);
		expect(result.ok).toBe(true);
		const [buy] = getNodeItems(result.run, DCA.buy);
		expect(buy.outcome).toBe('placed');
		expect(buy.fittedToSymbolRules).toEqual([
			expect.objectContaining({ field: 'amount', given: '25.123456789' }),
		]);
		const sent = (buy.fittedToSymbolRules as Array<{ sent: string }>)[0].sent;
		expect(Number(sent)).toBeLessThan(25.123456789);
		// The summary says the amount sent, as the order answer gives it.
		const [summary] = getNodeItems(result.run, DCA.summary);
		expect(summary.message).toContain(`a MARKET buy of ${sent} USDT of BTCUSDT`);
		expect(fx.sb.ledger.orders).toHaveLength(1);
		const order = requestsTo('/api/v1.1/spot/order')[0];
		expect(`${order.query}&${order.body}`).toContain(`amount=${sent}`);
	});

	test('DCA with 60 USDT: the Max Order Amount guardrail (50) refuses it, nothing is sent', async () => {
		const result = await run(DCA_GUARD_ID);
		expect(result.ok).toBe(false);
		const error = getNodeError(result.run, DCA.buy);
		expect(error?.message).toMatch(/Max Order Amount/);
		expect(requestsTo('/api/v1.1/spot/order')).toHaveLength(0);
		expect(fx.sb.ledger.orders).toHaveLength(0);
	});

	test('price alert: with a threshold above any change the alert message comes out, with the ticker’s figures as strings', async () => {
		const result = await run(ALERT_FIRES_ID);
		expect(result.ok).toBe(true);
		const [ticker] = getNodeItems(result.run, ALERT.ticker);
		expect(ticker).toMatchObject({
			symbol: 'BTCUSDT',
			lastPrice: expect.stringMatching(/^\d+(\.\d+)?$/),
			openPrice: expect.stringMatching(/^\d+(\.\d+)?$/),
			priceChangePercent: expect.stringMatching(/^-?\d+\.\d{2}$/),
		});
		const [message] = getNodeItems(result.run, ALERT.message);
		expect(message.message).toBe(
			`BTCUSDT is ${String(ticker.priceChangePercent)}% over 24 hours: last ${String(ticker.lastPrice)}, 24h open ${String(ticker.openPrice)}, low ${String(ticker.lowPrice)}`,
		);
		expect(getNodeItems(result.run, ALERT.check, 0, 1)).toHaveLength(0);
		const [request] = requestsTo('/quote/v1/ticker/24hr');
		expect(request.query).not.toMatch(/signature=/);
	});

	test('price alert: with a threshold below any change nothing is sent on (the false branch)', async () => {
		const result = await run(ALERT_QUIET_ID);
		expect(result.ok).toBe(true);
		expect(getNodeItems(result.run, ALERT.check, 0, 0)).toHaveLength(0);
		expect(getNodeItems(result.run, ALERT.check, 0, 1)).toHaveLength(1);
		expect(result.run.data?.resultData?.runData?.[ALERT.message]).toBeUndefined();
	});
});
