/**
 * The one sandbox set-up of the jest suites: a sandbox started once per test file, its ledger,
 * book and fault reset before each test, stopped after the file.
 *
 *   const sandbox = useSandbox({ rateLimit: false, requestRates: false });
 *   it('…', async () => { await runTradingService(sandbox(), …); });
 *
 * useSandboxClients adds the demo keys' signing clients, built once the sandbox listens:
 *
 *   const { sandbox, master, sub } = useSandboxClients({ now: () => T0, requestRates: false });
 *   it('…', async () => { expect((await master().account()).status).toBe(200); });
 *
 * The sandbox enforces the exchange's documented request rates (20 order, 5 query requests a
 * second per key) unless told otherwise; a suite about something else that sends faster turns them
 * off in its options here (`requestRates: false`), the one place a reader looks. The defaults of
 * both helpers turn off the weight budget and the request rates alike. The suites under test/fault,
 * test/e2e and test/queue run at the documented rates.
 */
import { DEMO_KEYS, startSandbox, type Sandbox, type SandboxOptions } from '../../sandbox';
import { TestClient } from '../../sandbox/testClient';
import { clearSymbolRulesCache } from '../../nodes/TradingService/orders/symbolRules';
import { clearAccountScopeCache } from '../../nodes/TradingService/transport';
import { forgetServices } from '../../nodes/TradingService/transport/pacing';

/** What a fresh n8n process holds: no symbol rules, no account scope, no key rates (before every test). */
export function clearProcessCaches(): void {
	// Each test reads the symbol rules afresh: a cached read would hide exchange info requests.
	clearSymbolRulesCache();
	clearAccountScopeCache();
	// And starts with the key's rates, suspensions and bans as a fresh n8n process has them:
	// a suspension one test provoked is not another test's.
	forgetServices();
}

export function useSandbox(
	options: SandboxOptions = { rateLimit: false, requestRates: false, symbolRules: 'lenient' },
): () => Sandbox {
	let sandbox: Sandbox | undefined;
	beforeAll(async () => {
		// lenient symbol rules unless a suite asks for 'realistic': suites about other things
		// place orders (price 1, 18-decimal quantities) that realistic rules refuse
		sandbox = await startSandbox({ symbolRules: 'lenient', ...options });
	});
	afterAll(async () => {
		await sandbox?.stop();
	});
	beforeEach(() => {
		sandbox?.reset();
		clearProcessCaches();
	});
	return () => {
		if (!sandbox) throw new Error('useSandbox(): the sandbox is used outside a test');
		return sandbox;
	};
}

export interface SandboxWithClients {
	sandbox: () => Sandbox;
	/** A client signing with DEMO_KEYS.master on the sandbox's clock. */
	master: () => TestClient;
	/** The same client with DEMO_KEYS.sub. */
	sub: () => TestClient;
}

/** useSandbox, plus the master and sub demo clients, built once per file after the start. */
export function useSandboxClients(
	options: SandboxOptions = { rateLimit: false, requestRates: false },
): SandboxWithClients {
	const sandbox = useSandbox(options);
	let master: TestClient | undefined;
	let sub: TestClient | undefined;
	beforeAll(() => {
		master = new TestClient(sandbox().baseUrl, DEMO_KEYS.master, () => sandbox().now());
		sub = master.withCredentials(DEMO_KEYS.sub);
	});
	const client = (c: TestClient | undefined) => {
		if (!c) throw new Error('useSandboxClients(): a client is used outside a test');
		return c;
	};
	return { sandbox, master: () => client(master), sub: () => client(sub) };
}
