/**
 * Issue 42: version 2's Get and Cancel ask Find Order By (Order ID / Client Order ID) and show the
 * one field it names, required; version 1 keeps Order ID and Client Order ID side by side. Futures
 * Get Order's choice has the same name. Through the node, against the sandbox.
 */
import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { TradingService } from '../../../../nodes/TradingService/TradingService.node';
import { requestsTo, runTradingService } from '../../../../tools/harness/node';
import { runCounting } from '../../../support/runs';
import { useSandbox } from '../../../support/sandbox';

const sandbox = useSandbox({ rateLimit: false, requestRates: false });
const v2 = { typeVersion: 2 };
const byId = (value: string) => ({ __rl: true, mode: 'id', value });

/** A version's properties of one operation of a resource, as n8n shows them. */
function properties(version: number, resource: string, operation: string): INodeProperties[] {
	return new TradingService()
		.getNodeType(version)
		.description.properties.filter(
			(property) =>
				property.displayOptions?.show?.resource?.includes(resource) &&
				property.displayOptions.show.operation?.includes(operation),
		);
}
const named = (shown: INodeProperties[], name: string) =>
	shown.find((property) => property.name === name);

/** Places a resting LIMIT BUY with the given client order ID through the node (version 2). */
async function placeWithClientId(clientOrderId: string): Promise<string> {
	const run = await runTradingService(sandbox(), {
		parameters: {
			resource: 'order',
			operation: 'create',
			symbol: byId('BTCUSDT'),
			side: 'BUY',
			type: 'LIMIT',
			price: '100',
			quantity: '0.01',
			options: { newClientOrderId: clientOrderId },
		},
		node: v2,
	});
	expect(run.error).toBeUndefined();
	return String(run.items[0].json.orderId);
}

describe('the forms', () => {
	it.each(['get', 'cancel'])(
		'version 2 %s: Find Order By first, then only the field it names, required',
		(operation) => {
			const shown = properties(2, 'order', operation);
			expect(shown.slice(0, 3).map((property) => property.name)).toEqual([
				'findBy',
				'orderId',
				'clientOrderId',
			]);
			expect(named(shown, 'findBy')).toMatchObject({
				displayName: 'Find Order By',
				type: 'options',
				default: 'orderId',
			});
			expect(
				(named(shown, 'findBy')?.options as Array<{ value: string }>).map((o) => o.value),
			).toEqual(['orderId', 'clientOrderId']);
			expect(named(shown, 'orderId')).toMatchObject({
				type: 'resourceLocator',
				required: true,
				displayOptions: { show: { findBy: ['orderId'] } },
			});
			expect(named(shown, 'clientOrderId')).toMatchObject({
				type: 'string',
				required: true,
				displayOptions: { show: { findBy: ['clientOrderId'] } },
			});
		},
	);

	it.each(['get', 'cancel'])(
		'version 1 %s: Order ID and Client Order ID side by side',
		(operation) => {
			const shown = properties(1, 'order', operation);
			expect(named(shown, 'findBy')).toBeUndefined();
			for (const name of ['orderId', 'clientOrderId']) {
				expect(named(shown, name)).toMatchObject({ type: 'string' });
				expect(named(shown, name)?.required).toBeUndefined();
				expect(named(shown, name)?.displayOptions?.show?.findBy).toBeUndefined();
			}
		},
	);

	it('futures Get Order names its choice Find Order By too', () => {
		expect(named(properties(2, 'futures', 'getOrder'), 'findBy')?.displayName).toBe(
			'Find Order By',
		);
	});
});

describe('version 2: the order found by the field Find Order By names', () => {
	it('Get by Client Order ID finds the order; a stale Order ID in the JSON is not read', async () => {
		const orderId = await placeWithClientId('row-42');
		const run = await runTradingService(sandbox(), {
			parameters: {
				resource: 'order',
				operation: 'get',
				findBy: 'clientOrderId',
				clientOrderId: '={{ $json.row }}',
				orderId: byId('1'),
			},
			inputItems: [{ json: { row: 'row-42' } }],
			node: v2,
		});
		expect(run.error).toBeUndefined();
		expect(run.items[0].json).toMatchObject({ orderId, clientOrderId: 'row-42' });
	});

	it('Cancel by Client Order ID cancels the order', async () => {
		const orderId = await placeWithClientId('row-43');
		const run = await runTradingService(sandbox(), {
			parameters: {
				resource: 'order',
				operation: 'cancel',
				findBy: 'clientOrderId',
				clientOrderId: 'row-43',
			},
			node: v2,
		});
		expect(run.error).toBeUndefined();
		expect(run.items[0].json).toMatchObject({ outcome: 'placed', orderId });
		expect(requestsTo(sandbox(), '/api/v1/spot/order').map((r) => r.method)).toContain('DELETE');
	});

	it('Cancel by Order ID (the default) with the picker', async () => {
		const orderId = await placeWithClientId('row-44');
		const run = await runTradingService(sandbox(), {
			parameters: { resource: 'order', operation: 'cancel', orderId: byId(orderId) },
			node: v2,
		});
		expect(run.error).toBeUndefined();
		expect(run.items[0].json).toMatchObject({ outcome: 'placed', orderId });
	});

	it.each([
		[{ findBy: 'clientOrderId', clientOrderId: '' }, 'Client Order ID'],
		[{ orderId: byId('') }, 'Order ID'],
	] as Array<[IDataObject, string]>)(
		'the field left empty: n8n refuses to run the node, nothing sent (%j)',
		async (fields, label) => {
			for (const operation of ['get', 'cancel']) {
				const since = sandbox().ledger.requests.length;
				await expect(
					runTradingService(sandbox(), {
						parameters: { resource: 'order', operation, ...fields },
						node: v2,
					}),
				).rejects.toThrow(`Parameter "${label}" is required`);
				expect(sandbox().ledger.requests.length).toBe(since);
			}
		},
	);

	it.each([
		[
			{ findBy: 'clientOrderId', clientOrderId: '={{ $json.row ?? "" }}' },
			'Client Order ID: is empty',
			/choose Order ID under Find Order By/,
		],
		[
			{ orderId: byId('={{ $json.id ?? "" }}') },
			'Order ID: is empty',
			/choose Client Order ID under Find Order By/,
		],
	] as Array<[IDataObject, string, RegExp]>)(
		'an expression that gives nothing is refused before any request, saying what to do (%j)',
		async (fields, message, fix) => {
			for (const operation of ['get', 'cancel']) {
				const run = await runCounting(sandbox(), {
					parameters: { resource: 'order', operation, ...fields },
					inputItems: [{ json: {} }],
					node: v2,
				});
				expect(run.error?.message).toBe(message);
				expect(run.error?.description).toMatch(fix);
				expect(run.requests).toEqual([]);
			}
		},
	);

	it('a Find Order By from an expression that gives something else is refused', async () => {
		const run = await runCounting(sandbox(), {
			parameters: {
				resource: 'order',
				operation: 'get',
				findBy: '={{ "orderNumber" }}',
				orderId: byId('1'),
				clientOrderId: 'row-1',
			},
			node: v2,
		});
		expect(run.error?.message).toBe('Find Order By: "orderNumber" is not allowed');
		expect(run.requests).toEqual([]);
	});
});

describe('version 1 is unchanged', () => {
	it('Order ID and Client Order ID both given are refused, as before', async () => {
		const run = await runCounting(sandbox(), {
			parameters: { resource: 'order', operation: 'get', orderId: '1', clientOrderId: 'row-1' },
		});
		expect(run.error?.message).toBe('Order ID: and Client Order ID are both set');
		expect(run.requests).toEqual([]);
	});

	it('Get by Client Order ID alone finds the order', async () => {
		const orderId = await placeWithClientId('row-45');
		const run = await runTradingService(sandbox(), {
			parameters: { resource: 'order', operation: 'get', clientOrderId: 'row-45' },
		});
		expect(run.error).toBeUndefined();
		expect(run.items[0].json).toMatchObject({ orderId, clientOrderId: 'row-45' });
	});
});
