import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';

import { writeSessionOf } from '../../../../nodes/TradingService/writes/writeSession';
import { RunContext } from '../../../../nodes/TradingService/run/runContext';
import { PROBE_NAME, probeDescription, runProbe } from '../../../support/probe';

// The run context inside a real node run (n8n-core's executor and expression evaluation): what it
// reads once per run, what per item, and what it keeps in the node's execution context. A probe
// node builds the context over execute functions that count the parameter reads.

interface Probe {
	/** Reads of getNodeParameter, as "name@item". */
	reads: string[];
	output: IDataObject[];
}

/**
 * Runs a probe node with `parameters` over `inputItems`; `use` gets the run context(s) built over
 * the run's execute functions (counted), and returns what the probe outputs.
 */
async function probe(
	parameters: IDataObject,
	inputItems: INodeExecutionData[],
	use: (context: () => RunContext, items: number) => IDataObject[],
	{ withNodeContext = true, continueOnFail = false } = {},
): Promise<Probe> {
	const result: Probe = { reads: [], output: [] };
	class ProbeNode implements INodeType {
		description = probeDescription();
		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			const counted = {
				getNode: () => this.getNode(),
				continueOnFail: () => this.continueOnFail(),
				getNodeParameter: (name: string, itemIndex: number, fallback?: unknown) => {
					result.reads.push(`${name}@${itemIndex}`);
					return this.getNodeParameter(name, itemIndex, fallback as never);
				},
				getWorkflowDataProxy: (itemIndex: number) => this.getWorkflowDataProxy(itemIndex),
				getInputData: () => this.getInputData(),
				...(withNodeContext ? { getContext: (type: 'node') => this.getContext(type) } : {}),
			} as unknown as IExecuteFunctions;
			result.output = use(() => new RunContext(counted), this.getInputData().length);
			return [result.output.map((json) => ({ json }))];
		}
	}
	const run = await runProbe(new ProbeNode(), {
		credentials: {},
		parameters,
		inputItems,
		continueOnFail,
	});
	const error = run.error(PROBE_NAME);
	if (error !== undefined) throw error;
	return result;
}

/** Create's parameters: n8n keeps only the parameters the node's description shows. */
const create = (parameters: IDataObject = {}): IDataObject => ({
	resource: 'order',
	operation: 'create',
	symbol: 'BTCUSDT',
	side: 'BUY',
	type: 'LIMIT',
	price: '100',
	quantity: '1',
	...parameters,
});
const threeItems = [{ json: { n: 1 } }, { json: { n: 2 } }, { json: { n: 3 } }];

describe('RunContext', () => {
	it('reads a parameter without an expression once per run; one with an expression for every item', async () => {
		const { reads, output } = await probe(
			create({ quantity: '={{ String($json.n / 10) }}' }),
			threeItems,
			(context, items) => {
				const run = context();
				return Array.from({ length: items }, (_, item) => ({
					symbol: run.parameter('symbol', item) as string,
					quantity: run.parameter('quantity', item) as string,
				}));
			},
		);
		expect(output).toEqual([
			{ symbol: 'BTCUSDT', quantity: '0.1' },
			{ symbol: 'BTCUSDT', quantity: '0.2' },
			{ symbol: 'BTCUSDT', quantity: '0.3' },
		]);
		expect(reads).toEqual(['symbol@0', 'quantity@0', 'quantity@1', 'quantity@2']);
	});

	it('a plain reference to the item (`={{ $json.x }}`, a picker’s too) is read from the item, without n8n; anything else goes through n8n', async () => {
		const { reads, output } = await probe(
			create({
				price: '={{ $json.price }}',
				quantity: '={{ $json["order"].qty }}',
				side: '={{ $json.side.toUpperCase() }}',
				symbol: { __rl: true, mode: 'id', value: '={{ $json.symbol }}' },
				options: { recvWindow: '={{ $json.window }}' },
			}),
			[
				{
					json: {
						price: '100.5',
						order: { qty: '0.25' },
						side: 'buy',
						symbol: 'BTCUSDT',
						window: 6000,
					},
				},
				{ json: { price: 101, order: { qty: null }, side: 'sell', symbol: 'ETHUSDT' } },
			],
			(context, items) => {
				const run = context();
				return Array.from({ length: items }, (_, item) => ({
					price: run.parameter('price', item) as string,
					quantity: run.parameter('quantity', item) as string,
					side: run.parameter('side', item) as string,
					symbol: run.parameter('symbol', item) as string,
					options: run.parameter('options', item) as IDataObject,
				}));
			},
		);
		expect(output).toEqual([
			{
				price: '100.5',
				quantity: '0.25',
				side: 'BUY',
				symbol: 'BTCUSDT',
				options: { recvWindow: 6000 },
			},
			// A number stays a number; null and a missing field are n8n's to give.
			{ price: 101, quantity: null, side: 'SELL', symbol: 'ETHUSDT', options: {} },
		]);
		expect(reads).toEqual(['side@0', 'quantity@1', 'side@1', 'options@1']);
	});

	it('a parameter left at its default is read once, with the fallback given', async () => {
		const { reads, output } = await probe({}, threeItems, (context, items) => {
			const run = context();
			return Array.from({ length: items }, (_, item) => ({
				value: run.parameter('notSet', item, 'fallback') as string,
			}));
		});
		expect(output.map((json) => json.value)).toEqual(['fallback', 'fallback', 'fallback']);
		expect(reads).toEqual(['notSet@0']);
	});

	it('knows a parameter varies when it holds an expression anywhere, a collection included', async () => {
		const { output } = await probe(
			create({
				price: '={{ $json.price }}',
				options: { recvWindow: 5000, allowedSymbols: '={{ $json.symbols }}' },
			}),
			[{ json: {} }],
			(context) => {
				const run = context();
				return [
					{
						symbol: run.varies('symbol'),
						price: run.varies('price'),
						options: run.varies('options'),
						missing: run.varies('missing'),
					},
				];
			},
		);
		expect(output).toEqual([{ symbol: false, price: true, options: true, missing: false }]);
	});

	it('checks fixed Options once per run, and for every item when an option is an expression', async () => {
		const checkedFor = (parameters: IDataObject) =>
			probe(parameters, threeItems, (context, items) => {
				const run = context();
				const checks: number[] = [];
				for (let item = 0; item < items; item++)
					run.options(item, (options) => {
						checks.push(item);
						return options;
					});
				return [{ checks }];
			});
		expect((await checkedFor(create({ options: { recvWindow: 6000 } }))).output).toEqual([
			{ checks: [0] },
		]);
		expect(
			(await checkedFor(create({ options: { recvWindow: '={{ 6000 + $json.n }}' } }))).output,
		).toEqual([{ checks: [0, 1, 2] }]);
	});

	it('the options a check returns are what every item gets', async () => {
		const { output } = await probe(
			create({ options: { recvWindow: 6000 } }),
			threeItems,
			(context, items) => {
				const run = context();
				return Array.from({ length: items }, (_, item) =>
					run.options(item, (options) => ({ window: Number(options.recvWindow) + 1 })),
				);
			},
		);
		expect(output).toEqual([{ window: 6001 }, { window: 6001 }, { window: 6001 }]);
	});

	it('the client order ID prefix comes from the node execution context: a new context of the same run (a Retry On Fail try) gets the same prefix', async () => {
		const { output } = await probe({}, [{ json: {} }], (context) => {
			const first = context();
			const second = context();
			return [
				{
					first: writeSessionOf(first).idPrefix,
					again: writeSessionOf(first).idPrefix,
					second: writeSessionOf(second).idPrefix,
				},
			];
		});
		expect(output[0].first).toMatch(/^n8n-[0-9a-f]{24}-0$/);
		expect(output[0].again).toBe(output[0].first);
		expect(output[0].second).toBe(output[0].first);
	});

	it('the write ledger lives in the node execution context, shared by the contexts of one run', async () => {
		const { output } = await probe({}, [{ json: {} }], (context) => {
			const first = context();
			writeSessionOf(first)
				.ledger.slot('0', 'fp')
				.record({ outcome: 'placed', result: { orderId: '1' } });
			return [
				{
					same: writeSessionOf(first).ledger === writeSessionOf(first).ledger,
					seenAgain: writeSessionOf(context()).ledger.slot('0', 'fp').recorded?.outcome ?? null,
				},
			];
		});
		expect(output).toEqual([{ same: true, seenAgain: 'placed' }]);
	});

	it('without an execution context the ledger and the ID nonce live for one run context only', async () => {
		const { output } = await probe(
			{},
			[{ json: {} }],
			(context) => {
				const first = context();
				writeSessionOf(first).ledger.slot('0', 'fp').record({ outcome: 'placed' });
				const second = context();
				return [
					{
						first: writeSessionOf(first).idPrefix,
						second: writeSessionOf(second).idPrefix,
						seenAgain: writeSessionOf(second).ledger.slot('0', 'fp').recorded?.outcome ?? null,
					},
				];
			},
			{ withNodeContext: false },
		);
		expect(output[0].first).toMatch(/^n8n-[0-9a-f]{24}-0$/);
		expect(output[0].second).not.toBe(output[0].first);
		expect(output[0].seenAgain).toBeNull();
	});

	it("reads the node and Continue On Fail from the node's settings", async () => {
		const read = (continueOnFail: boolean) =>
			probe(
				{},
				[{ json: {} }],
				(context) => {
					const run = context();
					return [{ name: run.node.name, continueOnFail: run.continueOnFail }];
				},
				{ continueOnFail },
			);
		expect((await read(false)).output).toEqual([{ name: 'Probe', continueOnFail: false }]);
		expect((await read(true)).output).toEqual([{ name: 'Probe', continueOnFail: true }]);
	});
});
