import {
	ACCOUNT_TYPES,
	DEFAULT_STP_MODE,
	ERROR_CODES,
	LIMITS,
	OPEN_ORDER_STATUSES,
	ORDER_SIDES,
	ORDER_TYPES,
	STP_MODES,
	TIME_IN_FORCE_BY_TYPE,
	UNKNOWN_OUTCOME_CODES,
} from '../../../nodes/TradingService/constants';
import { ACCOUNT_ENDPOINTS } from '../../../nodes/TradingService/account/endpoints';
import { ORDER_ENDPOINTS } from '../../../nodes/TradingService/orders/endpoints';
import { TRANSFER_ENDPOINTS } from '../../../nodes/TradingService/transfers/endpoints';
import { DECLARED_ENDPOINTS } from './transport/support';
import { FLOW_TYPES, findFlowType } from '../../../nodes/TradingService/helpers/flowTypes';
import { CODES, UNKNOWN_OUTCOME_CODES as SANDBOX_UNKNOWN_OUTCOME_CODES } from '../../../sandbox';
import { FLOW_TYPES as SANDBOX_FLOW_TYPES } from '../../../sandbox/constants';

// The values the service's API description fixes, written out here from its sections (fixed
// vectors), and the codes the sandbox (an independent implementation of the service) answers with.

describe('constants agree with the API description', () => {
	it('the paths the description gives (§4.2, §4.3, §4.4), every path under the /api/v1/ prefix (§9), market data under /quote/v1/', () => {
		expect(TRANSFER_ENDPOINTS.assetTransfer.path).toBe('/api/v1/account/assetTransfer');
		expect(ORDER_ENDPOINTS.batchOrders.path).toBe('/api/v1/spot/batchOrders');
		expect(ORDER_ENDPOINTS.newOrder.path).toBe('/api/v1/spot/new/order');
		// the unified endpoints of version 2 (the family's "Create Order v1.1" and batch pages)
		expect(ORDER_ENDPOINTS.unifiedOrder.path).toBe('/api/v1.1/spot/order');
		expect(ORDER_ENDPOINTS.unifiedBatchOrders.path).toBe('/api/v1.1/spot/batchOrders');
		// market data lives under /quote/v1/ (UAE documentation), the futures reads under
		// /api/v2/futures/ (UAE documentation, "Futures Trading"), everything else under /api/v1/
		for (const [name, { path }] of Object.entries(DECLARED_ENDPOINTS))
			expect([name, path]).toEqual([
				name,
				name.startsWith('futures.')
					? expect.stringMatching(/^\/api\/v2\/futures\/[A-Za-z]+(\/[A-Za-z-]+)?$/)
					: name.startsWith('orders.unified')
						? expect.stringMatching(/^\/api\/v1\.1\/spot\/[A-Za-z]+$/)
						: expect.stringMatching(/^\/(api|quote)\/v1\/[A-Za-z0-9/]+$/),
			]);
	});

	it('the weights the description gives (§8): history 5, batch orders 1; 1 for the rest', () => {
		expect(ACCOUNT_ENDPOINTS.history.weight).toBe(5);
		expect(ORDER_ENDPOINTS.batchOrders.weight).toBe(1);
		// §4.4 gives no weight for a single order: the default, 1
		expect(ORDER_ENDPOINTS.newOrder.weight).toBe(1);
		// the family's pages: "Create Order v1.1" weight 1, "Create Multiple Orders" weight 5
		expect(ORDER_ENDPOINTS.unifiedOrder.weight).toBe(1);
		expect(ORDER_ENDPOINTS.unifiedBatchOrders.weight).toBe(5);
	});

	it('the limits of §8 and §5.4: 500 records, 20 orders, 255 characters, 5000 ms, 1000 ms', () => {
		expect(LIMITS.historyPageSize).toBe(500);
		expect(LIMITS.ordersPerBatch).toBe(20);
		expect(LIMITS.clientOrderIdLength).toBe(255);
		expect(LIMITS.defaultRecvWindowMs).toBe(5000);
		expect(LIMITS.futureToleranceMs).toBe(1000);
		expect(LIMITS.maxRecvWindowMs).toBeGreaterThanOrEqual(LIMITS.defaultRecvWindowMs);
	});

	it('the eight flow types of §2.2 with their names and retention, 906 and 910 the fiat ones', () => {
		expect(
			FLOW_TYPES.map(({ value, specName, retentionDays }) => [value, specName, retentionDays]),
		).toEqual([
			[1, 'Trade', 7],
			[2, 'FEE', 7],
			[32, 'Funding FEE', 30],
			[51, 'USER_ACCOUNT_TRANSFER', 30],
			[900, 'CUSTODY_DEPOSIT', 30],
			[904, 'CUSTODY_WITHDRAW', 30],
			[906, 'FIAT_DEPOSIT', 30],
			[910, 'FIAT_WITHDRAW', 30],
		]);
		expect(findFlowType(906)?.displayName).toBe('Fiat Deposit');
		expect(findFlowType(910)?.displayName).toBe('Fiat Withdrawal');
	});

	it('the sandbox keeps each flow type for as long as the node expects', () => {
		expect(
			Object.keys(SANDBOX_FLOW_TYPES)
				.map(Number)
				.sort((a, b) => a - b),
		).toEqual(FLOW_TYPES.map((flowType) => flowType.value));
		for (const flowType of FLOW_TYPES)
			expect(SANDBOX_FLOW_TYPES[flowType.value].retentionDays).toBe(flowType.retentionDays);
	});

	it('findFlowType knows no value outside §2.2', () => {
		for (const value of [0, 3, 31, 52, 905, 911, -1]) expect(findFlowType(value)).toBeUndefined();
	});

	it('every flow type has a distinct display name and event name', () => {
		expect(new Set(FLOW_TYPES.map((flowType) => flowType.displayName)).size).toBe(8);
		expect(new Set(FLOW_TYPES.map((flowType) => flowType.eventName)).size).toBe(8);
	});

	it('the account types of §2.3: 1, 3, 5 and 6', () => {
		expect(ACCOUNT_TYPES.map((accountType) => accountType.value)).toEqual([1, 3, 5, 6]);
	});

	it('the order enumerations of §2.5: sides, types, the time in force each type allows, STP modes', () => {
		expect(ORDER_SIDES).toEqual(['BUY', 'SELL']);
		expect([...ORDER_TYPES].sort()).toEqual(['LIMIT', 'LIMIT_MAKER', 'MARKET']);
		expect(TIME_IN_FORCE_BY_TYPE).toEqual({ LIMIT: 'GTC', LIMIT_MAKER: 'GTC', MARKET: 'IOC' });
		expect(STP_MODES).toEqual(['EXPIRE_TAKER', 'EXPIRE_MAKER']);
		expect(DEFAULT_STP_MODE).toBe('EXPIRE_TAKER');
	});

	it('open order states hold NEW and PARTIALLY_FILLED, and no final state', () => {
		expect(OPEN_ORDER_STATUSES).toEqual(expect.arrayContaining(['NEW', 'PARTIALLY_FILLED']));
		for (const final of ['FILLED', 'CANCELED', 'PARTIALLY_CANCELED', 'REJECTED'])
			expect(OPEN_ORDER_STATUSES).not.toContain(final);
	});
});

describe('error codes agree with the sandbox', () => {
	it('every code is distinct', () => {
		const codes = Object.values(ERROR_CODES);
		expect(new Set(codes).size).toBe(codes.length);
	});

	it('every code the sandbox answers with is a code of the table, spelt the same', () => {
		const table: string[] = Object.values(ERROR_CODES);
		for (const { code } of Object.values(CODES)) expect(table).toContain(code);
	});

	it('the unknown-outcome codes are those of the sandbox, all of them codes of the table', () => {
		expect([...UNKNOWN_OUTCOME_CODES].sort()).toEqual([...SANDBOX_UNKNOWN_OUTCOME_CODES].sort());
		const table: string[] = Object.values(ERROR_CODES);
		for (const code of UNKNOWN_OUTCOME_CODES) expect(table).toContain(code);
	});

	it('a refusal that proves nothing was executed is never an unknown-outcome code', () => {
		for (const code of [
			ERROR_CODES.duplicateClientOrderId,
			ERROR_CODES.insufficientBalance,
			ERROR_CODES.orderFilled,
			ERROR_CODES.timestampOutsideWindow,
		])
			expect(UNKNOWN_OUTCOME_CODES).not.toContain(code);
	});
});
