/**
 * The transport's JSON parsing alone (transport/json.ts): what one answer costs to read, on the
 * fast path (JSON.parse, checked) and on the exact parser, for the answers the node reads most.
 *
 *   npx ts-node --transpile-only bench/jsonParse.ts      # BENCH_JSON_REPS=9 rounds (default)
 *
 * Each round parses every answer N times and reports µs per parse; the table shows the median of
 * the rounds. The answers are built here (the sandbox's shapes), so a run before and after a
 * change of the parser compares like with like.
 */
import { TEXT_FIELDS } from '../nodes/TradingService/transport/textFields';
import { parseJsonKeepingDigits } from '../nodes/TradingService/transport/answer';
import { parseJsonExactly } from '../nodes/TradingService/transport/jsonParser';
import { median } from './stats';

/** The fields the transport keeps as text (IDs and decimals). */
const FIELDS = TEXT_FIELDS;

const historyPage = (count: number) =>
	JSON.stringify(
		Array.from({ length: count }, (_, index) => ({
			id: String(1_600_000_000_000_000_033n + BigInt(index)),
			accountId: '10001',
			coin: 'USDT',
			coinId: 'USDT',
			coinName: 'USDT',
			flowTypeValue: 32,
			flowType: 'Funding FEE',
			flowName: '',
			change: `-0.${String(index).padStart(8, '0')}1`,
			total: `${1000 + index}.12345678`,
			created: String(1_764_000_000_000 + index * 1000),
			symbol: 'BTCUSDT-PERPETUAL',
		})),
	);

const order = (index: number) => ({
	accountId: '10001',
	symbol: 'BTCUSDT',
	symbolName: 'BTCUSDT',
	clientOrderId: `n8n-0123456789abcdef01234567-0-${index}-0`,
	orderId: String(1_950_000_000_000_000_017n + BigInt(index)),
	transactTime: String(1_764_000_000_000 + index),
	price: '100.5',
	origQty: '0.001',
	executedQty: '0',
	status: 'NEW',
	timeInForce: 'GTC',
	type: 'LIMIT',
	side: 'BUY',
	reqAmount: '0',
});

const batchAnswer = JSON.stringify({
	code: 0,
	result: Array.from({ length: 20 }, (_, index) => ({
		code: 0,
		msg: 'success',
		order: order(index),
	})),
});

const balances = JSON.stringify({
	balances: ['BTC', 'ETH', 'USDT', 'USDC', 'SOL', 'XRP'].map((asset, index) => ({
		asset,
		assetId: asset,
		assetName: asset,
		total: `${index}.12345678`,
		free: `${index}.1`,
		locked: '0.02345678',
	})),
	userId: '1001',
});

/** The same batch answer with its decimals as bare JSON numbers (18 decimals): the exact parser's case. */
const batchAnswerNumeric = batchAnswer
	.replace(/"price":"100.5"/g, '"price":100.123456789012345678')
	.replace(/"origQty":"0.001"/g, '"origQty":0.001000000000000001');

const ANSWERS: Array<[string, string]> = [
	['history page, 50 records', historyPage(50)],
	['history page, 500 records', historyPage(500)],
	['batch answer, 20 orders', batchAnswer],
	['balances, 6 coins', balances],
	['batch answer, 20 orders, 18-decimal numbers', batchAnswerNumeric],
];

function microsPerParse(parse: (text: string) => unknown, text: string, times: number): number {
	const start = process.hrtime.bigint();
	for (let index = 0; index < times; index++) parse(text);
	return Number(process.hrtime.bigint() - start) / 1e3 / times;
}

function main(): void {
	const rounds = Number(process.env.BENCH_JSON_REPS ?? 9);
	console.log(`JSON parse, µs per answer, median of ${rounds} rounds`);
	console.log('| Answer | bytes | parseJsonKeepingDigits | exact parser | JSON.parse |');
	console.log('|---|---|---|---|---|');
	for (const [name, text] of ANSWERS) {
		const times = Math.max(20, Math.floor(2_000_000 / text.length));
		const keeping: number[] = [];
		const exact: number[] = [];
		const plain: number[] = [];
		for (let round = 0; round < rounds; round++) {
			keeping.push(microsPerParse((t) => parseJsonKeepingDigits(t, FIELDS), text, times));
			exact.push(microsPerParse((t) => parseJsonExactly(t, FIELDS), text, times));
			plain.push(microsPerParse((t) => JSON.parse(t) as unknown, text, times));
		}
		console.log(
			`| ${name} | ${text.length} | ${median(keeping).toFixed(1)} | ${median(exact).toFixed(1)} | ${median(plain).toFixed(1)} |`,
		);
	}
}

main();
