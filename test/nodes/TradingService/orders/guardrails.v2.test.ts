/**
 * Issue 42: version 2 keeps the settings that change or refuse an order in their own Guardrails
 * collection, apart from the technical Options; version 1 keeps them in its Options. Through the
 * node, against the sandbox: version 2's guardrails hold from the new collection (refused, nothing
 * sent), one left under Options is refused before any request, naming where it moved, and version 1
 * is unchanged.
 */
import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { TradingService } from '../../../../nodes/TradingService/TradingService.node';
import { PATHS, errorOf, runCounting, type CountedRun } from '../../../support/runs';
import { useSandbox } from '../../../support/sandbox';

const sandbox = useSandbox({ rateLimit: false, requestRates: false, symbolRules: 'realistic' });
const v2 = { typeVersion: 2 };
const byId = (value: string) => ({ __rl: true, mode: 'id', value });

const GUARDRAILS = [
	'allowedSymbols',
	'fitToSymbolRules',
	'ifSymbolRulesUnreadable',
	'maxOrderAmount',
	'maxOrderQuantity',
];

/** A LIMIT BUY of 0.01 BTC at 50000: worth 500 USDT. */
const create = (extra: IDataObject = {}) => ({
	resource: 'order',
	operation: 'create',
	symbol: byId('BTCUSDT'),
	side: 'BUY',
	type: 'LIMIT',
	price: '50000',
	quantity: '0.01',
	...extra,
});
const createMany = (extra: IDataObject = {}) => ({
	resource: 'order',
	operation: 'createMany',
	inputMode: 'autoMap',
	...extra,
});
const ORDER = { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '50000', quantity: '0.01' };

/** Every create path of either version: a test that nothing was sent must see any of them. */
const ORDER_PATHS: string[] = [PATHS.order, PATHS.batch, PATHS.unifiedOrder, PATHS.unifiedBatch];
const orderRequests = (run: CountedRun) =>
	run.requests.filter((request) => ORDER_PATHS.includes(request.path));

/** A version's properties of one operation of Order, as n8n shows them. */
function properties(version: number, operation: string): INodeProperties[] {
	return new TradingService()
		.getNodeType(version)
		.description.properties.filter(
			(property) =>
				property.displayOptions?.show?.resource?.includes('order') &&
				property.displayOptions.show.operation?.includes(operation),
		);
}
const optionNames = (property: INodeProperties | undefined) =>
	((property?.options ?? []) as INodeProperties[]).map((option) => option.name).sort();

describe('the forms: Guardrails in version 2, Options in version 1', () => {
	it.each(['create', 'createMany'])(
		'version 2 %s: Guardrails holds the five, after the order fields and before Options',
		(operation) => {
			const shown = properties(2, operation);
			const names = shown.map((property) => property.name);
			const guardrails = shown.find((property) => property.name === 'guardrails');
			expect(guardrails).toMatchObject({
				displayName: 'Guardrails',
				type: 'collection',
				placeholder: 'Add Guardrail',
				default: {},
			});
			expect(optionNames(guardrails)).toEqual(GUARDRAILS);
			expect(names.indexOf('guardrails')).toBe(names.indexOf('options') - 1);
			if (operation === 'create')
				expect(names.indexOf('quantity')).toBeLessThan(names.indexOf('guardrails'));
			// Under Options the five show only when a node still holds one there, saying it moved.
			const options = shown.find((property) => property.name === 'options');
			const moved = ((options?.options ?? []) as INodeProperties[]).filter((option) =>
				GUARDRAILS.includes(option.name),
			);
			expect(moved.map((option) => option.name).sort()).toEqual(GUARDRAILS);
			for (const option of moved) {
				expect(option.displayName).toMatch(/ \(Moved to Guardrails\)$/);
				expect(option.displayOptions).toEqual({
					show: { [option.name]: [{ _cnd: { exists: true } }] },
				});
			}
			expect(optionNames(options)).toEqual(
				expect.arrayContaining([
					'generateClientOrderId',
					'newClientOrderId',
					'recvWindow',
					'stpMode',
				]),
			);
		},
	);

	it.each(['create', 'createMany'])(
		'version 1 %s: no Guardrails, the five stay in Options',
		(operation) => {
			const shown = properties(1, operation);
			expect(shown.map((property) => property.name)).not.toContain('guardrails');
			const options = optionNames(shown.find((property) => property.name === 'options'));
			expect(options).toEqual(expect.arrayContaining(GUARDRAILS));
		},
	);
});

describe('version 2: the guardrails hold from the Guardrails collection', () => {
	it('Create: an order worth 500 over Max Order Amount 100 is refused, nothing sent', async () => {
		const run = await runCounting(sandbox(), {
			parameters: create({ guardrails: { maxOrderAmount: '100' } }),
			node: v2,
		});
		expect(run.error?.message).toBe(
			'Quantity: the order is worth 500 (Price × Quantity), above Max Order Amount (100)',
		);
		expect(run.error?.description).toMatch(
			/^The node’s Max Order Amount guardrail refuses this order; nothing was sent\. Change the order, or change the limit in the node’s Guardrails if the order is intended\./,
		);
		expect(run.requests).toEqual([]);
	});

	it('Create: Allowed Symbols and Max Order Quantity from Guardrails refuse per item (Continue On Fail)', async () => {
		const run = await runCounting(sandbox(), {
			parameters: create({
				symbol: byId('={{ $json.symbol }}'),
				quantity: '={{ $json.quantity }}',
				guardrails: { allowedSymbols: 'BTCUSDT', maxOrderQuantity: '0.02' },
			}),
			inputItems: [
				{ json: { symbol: 'ETHUSDT', quantity: '0.01' } },
				{ json: { symbol: 'BTCUSDT', quantity: '0.05' } },
			],
			continueOnFail: true,
			node: v2,
		});
		expect(errorOf(run.items[0])).toBe('Symbol: ETHUSDT is not in Allowed Symbols (BTCUSDT)');
		expect(errorOf(run.items[1])).toBe('Quantity: 0.05 is above Max Order Quantity (0.02)');
		expect(orderRequests(run)).toEqual([]);
		expect(sandbox().ledger.orders).toHaveLength(0);
	});

	it('Create: Fit to Symbol Rules from Guardrails fits the order, which is placed', async () => {
		const run = await runCounting(sandbox(), {
			parameters: create({
				price: '50000.001',
				guardrails: { fitToSymbolRules: true, maxOrderAmount: '1000' },
			}),
			node: v2,
		});
		expect(run.error).toBeUndefined();
		expect(run.items[0].json).toMatchObject({ outcome: 'placed', price: '50000' });
		expect(sandbox().ledger.orders).toHaveLength(1);
	});

	it('Create Many: Allowed Symbols from Guardrails refuses the run before any batch', async () => {
		const run = await runCounting(sandbox(), {
			parameters: createMany({ guardrails: { allowedSymbols: 'ETHUSDT' } }),
			inputItems: [{ json: ORDER }],
			node: v2,
		});
		expect(run.error?.message).toBe(
			'Item 0, field symbol: BTCUSDT is not in Allowed Symbols (ETHUSDT)',
		);
		expect(run.error?.description).toMatch(
			/^The node’s Allowed Symbols guardrail refuses this order; nothing was sent\./,
		);
		expect(orderRequests(run)).toEqual([]);
	});

	it('a guardrail whose expression gave nothing is refused, naming Guardrails', async () => {
		const run = await runCounting(sandbox(), {
			parameters: create({ guardrails: { maxOrderAmount: '={{ $json.cap }}' } }),
			inputItems: [{ json: {} }],
			node: v2,
		});
		expect(run.error?.message).toBe('Max Order Amount: its expression gave no value');
		expect(run.error?.description).toMatch(
			/remove Max Order Amount from the Guardrails to have no limit\./,
		);
		expect(run.requests).toEqual([]);
	});
});

describe('version 2: a guardrail left under Options is refused before any request', () => {
	it.each([
		['allowedSymbols', 'Allowed Symbols', 'BTCUSDT'],
		['maxOrderAmount', 'Max Order Amount', '100000'],
		['maxOrderQuantity', 'Max Order Quantity', '1'],
		['fitToSymbolRules', 'Fit to Symbol Rules', true],
		['ifSymbolRulesUnreadable', "If Symbol Rules Can't Be Read", 'refuse'],
	])(
		'Create with options.%s: refused, naming the field and the fix',
		async (name, label, value) => {
			const run = await runCounting(sandbox(), {
				parameters: create({ options: { [name]: value } }),
				node: v2,
			});
			expect(run.error?.message).toBe(
				`${label} moved to Guardrails: this node still has it under Options`,
			);
			expect(run.error?.description).toContain(
				`Remove ${label} from Options and add it again with Add Guardrail`,
			);
			expect(run.error?.description).toContain(`move "${name}" from "options" into "guardrails"`);
			expect(run.requests).toEqual([]);
		},
	);

	it('Create Many with options.maxOrderAmount: refused before any request', async () => {
		const run = await runCounting(sandbox(), {
			parameters: createMany({ options: { maxOrderAmount: '1000' } }),
			inputItems: [{ json: ORDER }],
			node: v2,
		});
		expect(run.error?.message).toBe(
			'Max Order Amount moved to Guardrails: this node still has it under Options',
		);
		expect(run.requests).toEqual([]);
	});
});

describe('version 1 is unchanged: the guardrails are Options', () => {
	it('Create: Max Order Amount in Options refuses as before', async () => {
		const run = await runCounting(sandbox(), {
			parameters: {
				...create({ symbol: 'BTCUSDT', options: { maxOrderAmount: '100' } }),
				timeInForceLimit: 'GTC',
			},
		});
		expect(run.error?.message).toBe(
			'Quantity: the order is worth 500 (Price × Quantity), above Max Order Amount (100)',
		);
		expect(run.error?.description).toMatch(
			/^The node’s Max Order Amount option refuses this order; nothing was sent\. Change the order, or change the limit in the node’s Options if the order is intended\./,
		);
		expect(run.requests).toEqual([]);
	});

	it('Create Many: Fit to Symbol Rules in Options fits, and a guardrails parameter is not read', async () => {
		const run = await runCounting(sandbox(), {
			parameters: createMany({
				options: { fitToSymbolRules: true },
				guardrails: { maxOrderAmount: '1' },
			}),
			inputItems: [{ json: { ...ORDER, price: '50000.001' } }],
		});
		expect(run.error).toBeUndefined();
		expect(run.items[0].json).toMatchObject({ outcome: 'placed', success: true });
		expect(sandbox().ledger.orders).toHaveLength(1);
	});
});
