/**
 * The one sandbox set-up of the jest suites: a sandbox started once per test file, its ledger,
 * book and fault reset before each test, stopped after the file.
 *
 *   const sandbox = useSandbox({ rateLimit: false });
 *   it('…', async () => { await runTradingService(sandbox(), …); });
 */
import { startSandbox, type Sandbox, type SandboxOptions } from '../../sandbox';

export function useSandbox(options: SandboxOptions = { rateLimit: false }): () => Sandbox {
	let sandbox: Sandbox | undefined;
	beforeAll(async () => {
		sandbox = await startSandbox(options);
	});
	afterAll(async () => {
		await sandbox?.stop();
	});
	beforeEach(() => sandbox?.reset());
	return () => {
		if (!sandbox) throw new Error('useSandbox(): the sandbox is used outside a test');
		return sandbox;
	};
}
