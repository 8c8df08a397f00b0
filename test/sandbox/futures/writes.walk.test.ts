/**
 * futures/trading.ts on the walking mark price (realistic rules, the seeded walk): a STOP order
 * is triggered by the first request after the minute in which the mark crosses its stopPrice,
 * and a MARKET order fills at the mark of its minute. No control fixes the mark here.
 */
import { findContract, floorToStep, markPriceAt } from '../../../sandbox/futures/contracts';
import { Market } from '../../../sandbox/market/market';
import { useSandboxClients } from '../../support/sandbox';
import { T0 } from '../support';

const MINUTE = 60_000;
let clock = T0 + 1000;
beforeEach(() => {
	clock = T0 + 1000;
});
const { master } = useSandboxClients({
	now: () => clock,
	symbolRules: 'realistic',
	market: { seed: 1, moving: true },
	rateLimit: false,
	requestRates: false,
});
const BTC = findContract('BTCUSDT-PERPETUAL')!;
const walk = new Market({ symbolRules: 'realistic', seed: 1, moving: true }, () => clock);
const markAt = (ms: number) => markPriceAt(walk, BTC, ms);
type Q = Record<string, string | number>;
const call = async (method: 'POST' | 'GET', path: string, query: Q) =>
	(await master().call({ method, path: `/api/v2/futures/${path}`, query })).json;

it('a BUY stop above the mark triggers at the first request once the walk reaches it', async () => {
	const now = Number(markAt(clock));
	// the first minute ahead whose mark is above now's by at least a tick
	let minute = 1;
	while (Number(markAt(clock + minute * MINUTE)) <= now + 0.1 && minute < 10_000) minute++;
	const target = markAt(clock + minute * MINUTE);
	const stopPrice = floorToStep(target, BTC.tickSize);
	expect(Number(stopPrice)).toBeGreaterThan(now);
	const s = await call('POST', 'order', {
		symbol: BTC.symbol,
		side: 'BUY',
		type: 'STOP',
		baseQty: '0.01',
		stopPrice,
	});
	expect(s.status).toBe('ORDER_NEW');
	clock += (minute - 1) * MINUTE;
	expect((await call('GET', 'order', { orderId: s.orderId })).status).toBe('ORDER_NEW');
	clock += MINUTE;
	expect((await call('GET', 'order', { orderId: s.orderId })).status).toBe('ORDER_FILLED');
	const child = await call('GET', 'order', { clientOrderId: s.clientOrderId });
	expect(child).toMatchObject({ orderType: 'market', status: 'FILLED' });
	expect(child.avgPrice).toBe(floorToStep(markAt(clock), BTC.tickSize));
});
