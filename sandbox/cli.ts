/**
 * npm run sandbox [-- --port 8787] [--host 127.0.0.1] [--seed-demo] [--no-rate-limit]
 *   [--no-request-rates] [--suspension-ms N]
 *   [--symbol-rules realistic|lenient] [--market-seed N] [--no-market-moves]
 *   [--funding-interval-ms N]
 * Port: --port, else env SANDBOX_PORT, else 8787 (0 = ephemeral).
 */
import { DEMO_ACCOUNTS, DEMO_KEYS, startSandbox, type RequestRates } from './index';

function usage(): never {
	process.stderr.write(
		'usage: npm run sandbox -- [--port N] [--host H] [--seed-demo] [--no-rate-limit]\n' +
			'         [--no-request-rates] [--suspension-ms N]\n' +
			'         [--symbol-rules realistic|lenient] [--market-seed N] [--no-market-moves]\n' +
			'         [--funding-interval-ms N]\n',
	);
	process.exit(2);
}

async function main(): Promise<void> {
	const args = process.argv.slice(2);
	let port =
		process.env.SANDBOX_PORT !== undefined && process.env.SANDBOX_PORT !== ''
			? Number(process.env.SANDBOX_PORT)
			: 8787;
	let host = '127.0.0.1';
	let seedDemo = false;
	let rateLimit = true;
	let requestRates = true;
	let suspensionMs: number | undefined;
	let symbolRules: 'realistic' | 'lenient' = 'realistic';
	let marketSeed = 1;
	let moving = true;
	let fundingIntervalMs: number | undefined;
	const rulesArg = (v: string | undefined): 'realistic' | 'lenient' =>
		v === 'realistic' || v === 'lenient' ? v : usage();
	for (let i = 0; i < args.length; i++) {
		const a = args[i];
		if (a === '--port') port = Number(args[++i]);
		else if (a.startsWith('--port=')) port = Number(a.slice(7));
		else if (a === '--host') host = args[++i] ?? usage();
		else if (a.startsWith('--host=')) host = a.slice(7);
		else if (a === '--seed-demo') seedDemo = true;
		else if (a === '--no-rate-limit') rateLimit = false;
		else if (a === '--no-request-rates') requestRates = false;
		else if (a === '--suspension-ms') suspensionMs = Number(args[++i]);
		else if (a.startsWith('--suspension-ms=')) suspensionMs = Number(a.slice(16));
		else if (a === '--symbol-rules') symbolRules = rulesArg(args[++i]);
		else if (a.startsWith('--symbol-rules=')) symbolRules = rulesArg(a.slice(15));
		else if (a === '--market-seed') marketSeed = Number(args[++i]);
		else if (a.startsWith('--market-seed=')) marketSeed = Number(a.slice(14));
		else if (a === '--no-market-moves') moving = false;
		else if (a === '--funding-interval-ms') fundingIntervalMs = Number(args[++i]);
		else if (a.startsWith('--funding-interval-ms=')) fundingIntervalMs = Number(a.slice(22));
		else if (a === '--help' || a === '-h') usage();
		else usage();
	}
	if (!Number.isInteger(port) || port < 0 || port > 65535) usage();
	if (!Number.isSafeInteger(marketSeed)) usage();
	if (
		fundingIntervalMs !== undefined &&
		!(Number.isSafeInteger(fundingIntervalMs) && fundingIntervalMs >= 1)
	)
		usage();
	if (suspensionMs !== undefined && !(Number.isSafeInteger(suspensionMs) && suspensionMs >= 0))
		usage();
	const rates: Partial<RequestRates> | false = requestRates
		? suspensionMs === undefined
			? {}
			: { suspensionMs }
		: false;

	const sb = await startSandbox({
		port,
		host,
		seedDemo,
		symbolRules,
		market: { seed: marketSeed, moving },
		...(fundingIntervalMs === undefined ? {} : { fundingIntervalMs }),
		...(rateLimit ? {} : { rateLimit: false as const }),
		requestRates: rates,
	});
	const inForce = sb.requestRates();
	const lines = [
		`Trading Service sandbox listening on ${sb.baseUrl}`,
		'',
		'Demo API keys (X-APIKEY / secret):',
		...Object.entries(DEMO_KEYS).map(
			([name, k]) =>
				`  ${name.padEnd(9)} ${k.apiKey.padEnd(22)} ${k.secret}  [${k.permissions.join('+')}, ${k.kind}]`,
		),
		'',
		'Demo accounts:',
		`  main trading  ${DEMO_ACCOUNTS.mainTrading} (type 1)   main contract ${DEMO_ACCOUNTS.mainContract} (type 3)`,
		`  custody       ${DEMO_ACCOUNTS.custody} (type 5)   fiat          ${DEMO_ACCOUNTS.fiat} (type 6)`,
		`  sub trading   ${DEMO_ACCOUNTS.subTrading} (type 1, the sub key's account)`,
		'',
		seedDemo
			? 'Demo history seeded (funding fees over 30 days, transfers, deposits, trades).'
			: 'No history seeded (use --seed-demo).',
		inForce
			? `Request rates per API key: ${inForce.orderPerSecond} order, ${inForce.queryPerSecond} query requests a second; suspension ${inForce.suspensionMs} ms (--no-request-rates: none).`
			: 'Request rates: none (--no-request-rates).',
		`Symbol rules: ${symbolRules}; market seed ${marketSeed}, prices ${moving && symbolRules === 'realistic' ? 'walking' : 'fixed'}.`,
		'Press Ctrl+C to stop.',
	];
	process.stdout.write(`${lines.join('\n')}\n`);
	const shutdown = () => {
		void sb.stop().then(() => process.exit(0));
	};
	process.on('SIGINT', shutdown);
	process.on('SIGTERM', shutdown);
}

main().catch((e: unknown) => {
	process.stderr.write(`sandbox failed to start: ${e instanceof Error ? e.message : String(e)}\n`);
	process.exit(1);
});
