import { DEMO_KEYS, startSandbox, type Sandbox } from '../../../../../sandbox';
import { generatedClientOrderId, requestsTo, runTradingService } from '../../../../../tools/harness/node';

const NEW_ORDER = '/api/v1/spot/new/order';
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox({ rateLimit: false });
});
afterAll(async () => sandbox.stop());
beforeEach(() => sandbox.reset());

const limitOrder = (overrides: Record<string, unknown> = {}) => ({
	resource: 'order',
	operation: 'create',
	symbol: 'BTCUSDT',
	side: 'BUY',
	type: 'LIMIT',
	price: '50000.10',
	quantity: '0.0100',
	...overrides,
});
const marketOrder = (overrides: Record<string, unknown> = {}) => ({
	resource: 'order',
	operation: 'create',
	symbol: 'ETHUSDT',
	side: 'BUY',
	type: 'MARKET',
	quantity: '0.5',
	...overrides,
});

describe('Order > Create', () => {
	it('places a LIMIT order with GTC, the default STP mode and a generated client order ID', async () => {
		const run = await runTradingService(sandbox, { parameters: limitOrder() });
		expect(run.error).toBeUndefined();
		const clientOrderId = run.items[0].json.clientOrderId as string;
		expect(clientOrderId).toMatch(generatedClientOrderId(0));
		expect(run.items[0].json).toMatchObject({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '50000.1', timeInForce: 'GTC', status: 'NEW' });
		const [request] = requestsTo(sandbox, NEW_ORDER);
		expect(request.query).toMatch(
			new RegExp(`^symbol=BTCUSDT&side=BUY&type=LIMIT&timeInForce=GTC&stpMode=EXPIRE_TAKER&quantity=0\\.0100&price=50000\\.10&newClientOrderId=${clientOrderId}&recvWindow=5000&timestamp=\\d+&signature=`),
		);
		expect(sandbox.ledger.orders).toHaveLength(1);
	});

	it('places MARKET orders by quantity or by amount, with IOC', async () => {
		const byQuantity = await runTradingService(sandbox, { parameters: marketOrder() });
		expect(byQuantity.items[0].json).toMatchObject({ type: 'MARKET', timeInForce: 'IOC', status: 'FILLED', origQty: '0.5' });
		const byAmount = await runTradingService(sandbox, { parameters: marketOrder({ amount: '100', quantity: '' }) });
		expect(byAmount.error).toBeUndefined();
		expect(requestsTo(sandbox, NEW_ORDER)[1].query).toMatch(/&amount=100&/);
		expect(requestsTo(sandbox, NEW_ORDER)[1].query).not.toMatch(/quantity=/);
	});

	it('a MARKET order with both Quantity and Amount is refused', async () => {
		const run = await runTradingService(sandbox, { parameters: marketOrder({ amount: '100' }) });
		expect(run.error?.message).toBe('Amount: MARKET orders take Quantity or Amount, not both');
		expect(sandbox.ledger.requests).toHaveLength(0);
	});

	it('Type mapped from each item (or set by an AI agent): each order gets its own fields and time in force', async () => {
		const run = await runTradingService(sandbox, {
			parameters: limitOrder({ type: '={{ $json.type }}', price: '={{ $json.price ?? "" }}', quantity: '={{ $json.quantity ?? "" }}', amount: '={{ $json.amount ?? "" }}' }),
			inputItems: [
				{ json: { type: 'LIMIT', price: '10', quantity: '0.1' } },
				{ json: { type: 'MARKET', amount: '20' } },
				{ json: { type: 'LIMIT_MAKER', price: '11', quantity: '0.1' } },
			],
		});
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => [item.json.type, item.json.timeInForce])).toEqual([['LIMIT', 'GTC'], ['MARKET', 'IOC'], ['LIMIT_MAKER', 'GTC']]);
		expect(sandbox.ledger.orders).toHaveLength(3);
	});

	it('uses the client order ID, STP mode and receive window given', async () => {
		const run = await runTradingService(sandbox, {
			parameters: limitOrder({ newClientOrderId: 'row-42', stpMode: 'EXPIRE_MAKER', type: 'LIMIT_MAKER', options: { recvWindow: 20000 } }),
		});
		expect(run.items[0].json).toMatchObject({ clientOrderId: 'row-42', type: 'LIMIT_MAKER' });
		expect(requestsTo(sandbox, NEW_ORDER)[0].query).toMatch(/stpMode=EXPIRE_MAKER&.*newClientOrderId=row-42&recvWindow=20000&timestamp=/);
	});

	it('a client order ID used before is reported as already placed, not placed twice', async () => {
		await runTradingService(sandbox, { parameters: limitOrder({ newClientOrderId: 'row-7' }) });
		const again = await runTradingService(sandbox, { parameters: limitOrder({ newClientOrderId: 'row-7' }) });
		expect(again.error).toBeUndefined();
		expect(again.items[0].json).toMatchObject({ alreadyPlaced: true, clientOrderId: 'row-7', code: '-1149' });
		expect(sandbox.ledger.orders).toHaveLength(1);
	});

	it('after an unknown outcome, sends the same client order ID again: placed once, reported already placed', async () => {
		sandbox.setFaults({ rules: [{ kind: 'dropAfter', times: 1, path: NEW_ORDER }] });
		const run = await runTradingService(sandbox, { parameters: limitOrder() });
		expect(run.error).toBeUndefined();
		expect(run.items[0].json).toMatchObject({ alreadyPlaced: true, clientOrderId: expect.stringMatching(generatedClientOrderId(0)) });
		const sent = requestsTo(sandbox, NEW_ORDER).map((request) => /newClientOrderId=([^&]+)/.exec(request.query)?.[1]);
		expect(sent[0]).toBe(sent[1]);
		expect(requestsTo(sandbox, NEW_ORDER)).toHaveLength(2);
		expect(sandbox.ledger.orders).toHaveLength(1);
	});

	it('after an unknown outcome where nothing was placed, the retry places the order once', async () => {
		sandbox.setFaults({ rules: [{ kind: 'http502', times: 1, path: NEW_ORDER }] });
		const run = await runTradingService(sandbox, { parameters: limitOrder() });
		expect(run.items[0].json).toMatchObject({ status: 'NEW' });
		expect(sandbox.ledger.orders).toHaveLength(1);
	});

	it('without a client order ID an unknown outcome is never retried', async () => {
		sandbox.setFaults({ rules: [{ kind: 'dropAfter', times: 1, path: NEW_ORDER }] });
		const run = await runTradingService(sandbox, { parameters: limitOrder({ options: { generateClientOrderId: false } }) });
		expect(run.error?.message).toMatch(/^Unknown outcome: the BUY LIMIT order for BTCUSDT may or may not have been executed/);
		expect(run.error?.description).toContain('Check your open orders and trade history for BTCUSDT');
		expect(requestsTo(sandbox, NEW_ORDER)).toHaveLength(1);
		expect(sandbox.ledger.orders).toHaveLength(1);
	});

	it('n8n Retry On Fail re-runs the node in the same execution: the order is not placed twice', async () => {
		sandbox.setFaults({ rules: [{ kind: 'dropAfter', times: 3, path: NEW_ORDER }] });
		const run = await runTradingService(sandbox, {
			parameters: limitOrder(),
			node: { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 },
		});
		expect(run.error).toBeUndefined();
		expect(run.items[0].json).toMatchObject({ alreadyPlaced: true });
		expect(sandbox.ledger.orders).toHaveLength(1);
	});

	it('insufficient balance is reported with advice', async () => {
		const run = await runTradingService(sandbox, { parameters: limitOrder({ quantity: '1000000' }) });
		expect(run.error?.message).toBe('The account balance is too low for this request');
	});

	it('a read-only key cannot place orders', async () => {
		const run = await runTradingService(sandbox, { parameters: limitOrder(), key: DEMO_KEYS.readOnly });
		expect(run.error?.message).toBe('The API key is not allowed to do this');
		expect(sandbox.ledger.orders).toHaveLength(0);
	});

	describe('validates everything before sending, naming the field', () => {
		it.each([
			['Symbol', limitOrder({ symbol: 'btcusdt' })],
			['Symbol', limitOrder({ symbol: 'BTC/USDT' })],
			['Side', limitOrder({ side: 'HOLD' })],
			['Type', limitOrder({ type: 'STOP' })],
			['Price', limitOrder({ price: '={{ "" }}' })],
			['Price', limitOrder({ price: 'abc' })],
			['Price', limitOrder({ price: '0.0' })],
			['Quantity', limitOrder({ quantity: '-0.1' })],
			['Quantity', limitOrder({ quantity: '1e3' })],
			['Time In Force', limitOrder({ timeInForceLimit: 'IOC' })],
			['Time In Force', marketOrder({ timeInForceMarket: 'GTC' })],
			['Quantity', marketOrder({ quantity: '={{ "" }}' })],
			['Amount', marketOrder({ quantity: '', amount: 'ten' })],
			['Self-Trade Prevention', limitOrder({ stpMode: 'NONE' })],
			['Client Order ID', limitOrder({ newClientOrderId: 'x'.repeat(256) })],
			['Client Order ID', limitOrder({ newClientOrderId: 'has space' })],
			['Receive Window (Ms)', limitOrder({ options: { recvWindow: 60001 } })],
		])('%s (case %#)', async (field, parameters) => {
			const run = await runTradingService(sandbox, { parameters });
			expect(run.error?.message.startsWith(`${field}: `)).toBe(true);
			expect(run.error?.description).toBeTruthy();
			expect(sandbox.ledger.requests).toHaveLength(0);
		});

		it('accepts a 255-character client order ID', async () => {
			const run = await runTradingService(sandbox, { parameters: limitOrder({ newClientOrderId: 'y'.repeat(255) }) });
			expect(run.error).toBeUndefined();
		});
	});
});

describe('generated client order IDs', () => {
	it('differ between executions (and so between n8n instances, whose execution ids both start at 1)', async () => {
		const first = await runTradingService(sandbox, { parameters: limitOrder(), executionId: '1' });
		const second = await runTradingService(sandbox, { parameters: limitOrder(), executionId: '1' });
		expect(first.items[0].json.clientOrderId).not.toBe(second.items[0].json.clientOrderId);
		expect(second.items[0].json.alreadyPlaced).toBeUndefined();
		expect(sandbox.ledger.orders).toHaveLength(2);
	});
});
