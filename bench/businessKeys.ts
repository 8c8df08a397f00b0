/**
 * Bench 6: what checking business keys costs. The same orders with and without a client order ID
 * given by the user (a business key, looked up before the order is sent: docs/safety.md), through
 * Create (one lookup per order) and Create Many (one open-orders and one past-orders page per
 * symbol), on loopback and with server latency; then a second execution of the same keys, which
 * finds every order and sends none. Requests and their weight come from the sandbox's ledger.
 */
import type { IDataObject } from 'n8n-workflow';

import type { Sandbox } from '../sandbox';
import { runNode } from './nodeRun';
import { fmtMs, median, timed, type Row } from './stats';

const ORDERS = Number(process.env.BENCH_KEY_ORDERS ?? 200);
const REPS = Number(process.env.BENCH_KEY_REPS ?? 3);
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 20);

interface Figures {
	ms: number;
	requests: number;
	weight: number;
	placed: number;
}

async function runOrders(
	sandbox: Sandbox,
	operation: 'create' | 'createMany',
	keyed: boolean,
	execution: string,
): Promise<Figures> {
	const before = sandbox.ledger.requests.length;
	const ordersBefore = sandbox.ledger.orders.length;
	const parameters: IDataObject = {
		resource: 'order',
		operation,
		...(operation === 'createMany' ? { inputMode: 'items' } : {}),
		symbol: 'BTCUSDT',
		side: 'BUY',
		type: 'LIMIT',
		price: '={{ $json.price }}',
		quantity: '0.001',
		...(keyed ? { newClientOrderId: '={{ $json.key }}' } : {}),
	};
	const inputItems = Array.from({ length: ORDERS }, (_, index) => ({
		json: { price: `${100 + index}`, key: `bench-row-${index}` },
	}));
	const { ms, value: run } = await timed(() => runNode(sandbox, parameters, inputItems, execution));
	if (run.error) throw run.error;
	const requests = sandbox.ledger.requests.slice(before);
	return {
		ms,
		requests: requests.length,
		weight: requests.reduce((sum, request) => sum + request.weight, 0),
		placed: sandbox.ledger.orders.length - ordersBefore,
	};
}

function row(measure: string, figures: Figures[]): Row {
	const ms = median(figures.map((one) => one.ms));
	const [first] = figures;
	return {
		benchmark: '6 business keys',
		measure,
		value: `${fmtMs(ms)} (${fmtMs(ms / ORDERS)}/order), ${first.requests} requests, weight ${first.weight}, ${first.placed} placed`,
		target: 'info',
		verdict: 'info',
	};
}

export async function benchBusinessKeys(sandbox: Sandbox): Promise<Row[]> {
	const rows: Row[] = [];
	let execution = 0;
	for (const latencyMs of [0, LATENCY_MS]) {
		const suffix = latencyMs > 0 ? `, ${latencyMs} ms latency` : ', loopback';
		for (const operation of ['create', 'createMany'] as const) {
			for (const keyed of [false, true]) {
				const figures: Figures[] = [];
				const again: Figures[] = [];
				for (let rep = 0; rep < REPS; rep++) {
					sandbox.reset();
					if (latencyMs > 0) sandbox.setFaults({ latencyMs });
					figures.push(await runOrders(sandbox, operation, keyed, `bench-keys-${++execution}`));
					if (keyed)
						again.push(await runOrders(sandbox, operation, keyed, `bench-keys-${++execution}`));
				}
				const what = `${operation === 'create' ? 'Create' : 'Create Many'}, ${ORDERS} orders`;
				rows.push(row(`${what}, ${keyed ? 'business keys' : 'generated IDs'}${suffix}`, figures));
				if (keyed) rows.push(row(`${what}, same keys again (all found)${suffix}`, again));
			}
		}
	}
	return rows;
}
