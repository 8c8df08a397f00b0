import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

import { TradingServiceApi } from '../../../../credentials/TradingServiceApi.credentials';
import * as create from '../../../../nodes/TradingService/orders/create.operation';
import * as cancel from '../../../../nodes/TradingService/orders/cancel.operation';
import { RunContext } from '../../../../nodes/TradingService/run/runContext';
import { TradingService } from '../../../../nodes/TradingService/TradingService.node';
import { type Sandbox } from '../../../../sandbox';
import { credentialsFor, requestsTo } from '../../../../tools/harness/node';
import { runWorkflow } from '../../../../tools/harness/workflow';
import { placeRestingOrders } from '../../../support/orders';
import { useSandbox } from '../../../support/sandbox';

// The write engine and the run context with several items of one run in flight at once: a node
// that runs every item's operation concurrently over one run context, through n8n-core's real
// executor and request helper, against the sandbox.

const NEW_ORDER = '/api/v1/spot/new/order';
const ORDER = '/api/v1/spot/order';
const OPEN_ORDERS = '/api/v1/spot/openOrders';
const PAST_ORDERS = '/api/v1/spot/tradeOrders';
const NODE_TYPE = 'n8n-nodes-trading-service.concurrentTradingService';

/** The Trading Service node, but with every item's operation started at once. */
class ConcurrentTradingService implements INodeType {
	description: INodeTypeDescription = {
		...new TradingService().getNodeType(1).description,
		name: 'concurrentTradingService',
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const run = new RunContext(this);
		const operation = this.getNodeParameter('operation', 0) === 'create' ? create : cancel;
		const items = this.getInputData();
		const settled = await Promise.all(
			items.map(async (_, itemIndex) => {
				try {
					return (await operation.execute(run, itemIndex))[0];
				} catch (error) {
					return {
						error: (error as Error).message,
						outcome: (error as { context?: IDataObject }).context?.outcome ?? null,
					};
				}
			}),
		);
		return [settled.map((json, itemIndex) => ({ json, pairedItem: { item: itemIndex } }))];
	}
}

async function runConcurrently(
	sandbox: Sandbox,
	parameters: IDataObject,
	inputItems: INodeExecutionData[],
	node: IDataObject = {},
	nodeType: INodeType = new ConcurrentTradingService(),
) {
	const result = await runWorkflow({
		nodes: [
			{
				id: 'concurrent',
				name: 'Concurrent',
				type: NODE_TYPE,
				typeVersion: 1,
				position: [0, 0],
				parameters: parameters as never,
				credentials: { tradingServiceApi: { id: '1', name: 'Sandbox' } },
				...node,
			},
		],
		nodeTypes: { [NODE_TYPE]: nodeType },
		credentialTypes: { tradingServiceApi: new TradingServiceApi() },
		credentials: { tradingServiceApi: credentialsFor(sandbox) as never },
		inputItems,
	});
	return { items: result.output('Concurrent'), error: result.error('Concurrent') };
}

const sandbox = useSandbox({ rateLimit: false, requestRates: false });

describe('write engine: items of one run in flight at once', () => {
	it('12 orders sent together, 4 of them committed but unanswered: each placed exactly once, each item its own order', async () => {
		sandbox().setFaults({
			latencyMs: 20,
			rules: [{ kind: 'dropAfter', times: 4, path: NEW_ORDER }],
		});
		const inputItems = Array.from({ length: 12 }, (_, index) => ({
			json: { price: `${100 + index}` },
		}));
		const run = await runConcurrently(
			sandbox(),
			{
				resource: 'order',
				operation: 'create',
				symbol: 'BTCUSDT',
				side: 'BUY',
				type: 'LIMIT',
				price: '={{ $json.price }}',
				quantity: '0.001',
			},
			inputItems,
		);
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json.outcome)).toEqual(Array(12).fill('placed'));
		// Every item reports the order of its own price, and the orders placed are exactly the 12 sent.
		expect(run.items.map((item) => item.json.price)).toEqual(
			inputItems.map((item) => item.json.price),
		);
		expect(sandbox().ledger.orders).toHaveLength(12);
		expect(new Set(sandbox().ledger.orders.map((order) => order.clientOrderId)).size).toBe(12);
		expect(new Set(run.items.map((item) => item.json.clientOrderId))).toEqual(
			new Set(sandbox().ledger.orders.map((order) => order.clientOrderId)),
		);
		// The 4 unanswered ones were looked up, none sent again: together, from the open orders,
		// when they were all waiting at once (the other requests answered), else one by one; never
		// more than a request each.
		expect(requestsTo(sandbox(), NEW_ORDER)).toHaveLength(12);
		const lookups = [
			...requestsTo(sandbox(), ORDER).filter((request) => request.method === 'GET'),
			...requestsTo(sandbox(), OPEN_ORDERS),
			...requestsTo(sandbox(), PAST_ORDERS),
		];
		expect(lookups.length).toBeGreaterThanOrEqual(1);
		expect(lookups.length).toBeLessThanOrEqual(4);
	});

	it('Retry On Fail with items in flight together: the ledger of every item is kept, nothing is sent twice', async () => {
		const orderIds = await placeRestingOrders(sandbox(), 6);
		const missing = '1234567890123456789';
		const since = sandbox().ledger.requests.length;
		const inputItems = [...orderIds, missing].map((id) => ({ json: { id } }));
		// The run context's items answer at once; the last item's error makes n8n run the node again.
		class FailingAfterAll extends ConcurrentTradingService {
			async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
				const [items] = await ConcurrentTradingService.prototype.execute.call(this);
				const failed = items.find((item) => typeof item.json.error === 'string');
				if (failed !== undefined) throw new Error(String(failed.json.error));
				return [items];
			}
		}
		const run = await runConcurrently(
			sandbox(),
			{ resource: 'order', operation: 'cancel', orderId: '={{ $json.id }}' },
			inputItems,
			{ retryOnFail: true, maxTries: 3, waitBetweenTries: 0 },
			new FailingAfterAll(),
		);
		expect(run.error?.message).toMatch(/the service has no order with this ID/);
		const deletes = requestsTo(sandbox(), ORDER, since).filter(
			(request) => request.method === 'DELETE',
		);
		// 6 cancels on the first try only, and the unknown order once per try.
		expect(deletes).toHaveLength(6 + 3);
		expect(
			sandbox()
				.ledger.cancels.map((entry) => entry.orderId)
				.sort(),
		).toEqual([...orderIds].sort());
	});
});
