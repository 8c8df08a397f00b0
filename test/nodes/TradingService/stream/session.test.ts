/**
 * The real-time trigger reads the stream in the shapes the UAE documentation gives (sandbox
 * `sb.stream.setEventShape`), over loopback through n8n-core's trigger path: a contract order
 * report without the spot report's cumulative quantity, a contract balance without a locked
 * amount, an order update without an event name, a maker flag sent as text.
 */
import { DEMO_ACCOUNTS, type Sandbox } from '../../../../sandbox';
import { useRealTimeRunners } from '../../../support/realTime';

const { sandbox, runner, connected } = useRealTimeRunners({ settleMs: 200 });

let priceStep = 0;
function restingOrder(sb: Sandbox): string {
	priceStep++;
	return sb.seedOpenOrder({
		symbol: 'BTCUSDT',
		side: 'BUY',
		price: `${200 + priceStep}`,
		quantity: '0.01',
		time: sb.now(),
	}).orderId;
}

describe('Real-time trigger: the UAE stream shapes', () => {
	it('reads a contractExecutionReport without z: the filled quantity is q less r', async () => {
		const sb = sandbox();
		sb.stream.setEventShape({ orders: 'contract' });
		const r = runner({ parameters: { events: ['orderFilled', 'orderPartiallyFilled'] } });
		await r.activate();
		await connected(r);
		const orderId = restingOrder(sb);
		sb.fillOrder(orderId, '0.004');
		sb.fillOrder(orderId);
		await r.waitFor(() => r.executions.length === 2, 5_000, 'two fills');
		expect(
			r.items().map((item) => [item.status, item.executedQuantity, item.market, item.source]),
		).toEqual([
			['PARTIALLY_FILLED', '0.004', 'contract', 'stream'],
			['FILLED', '0.01', 'contract', 'stream'],
		]);
		// A contract report's fill is named by its trade ID: `t`, else `d` (as here, the spot report's).
		for (const item of r.items())
			expect(item.eventId).toBe(`futures-fill-${String((item.raw as { d: string }).d)}`);
		expect((r.items()[0].raw as { e: string; z?: string }).e).toBe('contractExecutionReport');
		expect((r.items()[0].raw as { z?: string }).z).toBeUndefined();
	});

	it('reads an outboundContractAccountInfo whose balances have no l: the locked amount is left out', async () => {
		const sb = sandbox();
		sb.stream.setEventShape({ balances: 'contract' });
		const r = runner({ parameters: { events: ['balanceChanged'] } });
		await r.activate();
		await connected(r);
		sb.setBalance(DEMO_ACCOUNTS.mainTrading, 'ETH', '7.5');
		await r.waitFor(() => r.executions.length === 1, 5_000, 'the balance change');
		const [item] = r.items();
		expect(item).toMatchObject({
			event: 'balanceChanged',
			market: 'contract',
			coin: 'ETH',
			free: '7.5',
			source: 'stream',
		});
		expect(item).not.toHaveProperty('locked');
	});

	it('reads an event with an empty e whose fields are an order update', async () => {
		const sb = sandbox();
		sb.stream.setEventShape({ orders: 'unnamed' });
		const r = runner();
		await r.activate();
		await connected(r);
		const orderId = restingOrder(sb);
		sb.fillOrder(orderId);
		await r.waitFor(() => r.executions.length === 1, 5_000, 'the fill');
		expect(r.items()[0]).toMatchObject({
			event: 'orderFilled',
			eventId: `order-${orderId}-FILLED-0.01`,
			market: 'spot',
		});
	});

	it('reads the maker flag m whether sent as a boolean or as text', async () => {
		const sb = sandbox();
		sb.stream.setEventShape({ makerFlag: 'text' });
		const r = runner();
		await r.activate();
		await connected(r);
		const orderId = restingOrder(sb);
		sb.fillOrder(orderId);
		await r.waitFor(() => r.executions.length === 1, 5_000, 'the fill');
		const raw = r.items()[0].raw as { m: unknown };
		expect(typeof raw.m).toBe('string');
		expect((r.items()[0].lastFill as { isMaker: unknown }).isMaker).toBe(raw.m === 'true');
	});
});
