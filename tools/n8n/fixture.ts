/**
 * Shared set-up of the e2e test files: a sandbox in this process (127.0.0.1, ephemeral port), a
 * fresh n8n user folder with the package installed from `npm pack` (as n8n installs community
 * packages), the sandbox credentials imported with `n8n import:credentials`, and the given
 * workflows imported with `n8n import:workflow`.
 */
import { randomBytes } from 'crypto';

import { DEMO_KEYS, startSandbox, type Sandbox, type SandboxOptions } from '../../sandbox';
import { SANDBOX_CREDENTIAL, sandboxCredential, type Workflow } from './examples';
import { importCredentials, importWorkflow, type N8nCredential } from './cli';
import { createN8nEnv, createTempUserFolder, removeUserFolder, type N8nEnv } from './environment';
import { packAndInstallPackage } from './package';
import { ensureRuntime } from './runtime';

/**
 * Extra n8n env for these runs: the MCP server registry module fetches a list from n8n's servers
 * at start (there is no network here: it only logs an error); nothing here uses it.
 */
export const QUIET_N8N_ENV: Record<string, string> = { N8N_DISABLED_MODULES: 'mcp-registry' };

/** A credential like the examples' one, but with a wrong secret (same API key). */
export const BAD_CREDENTIAL = {
	id: 'sandbox-cred-bad',
	name: 'Trading Service Sandbox (wrong secret)',
} as const;

export interface E2eFixture {
	sb: Sandbox;
	env: N8nEnv;
	userFolder: string;
	/** The wrong secret stored in BAD_CREDENTIAL: must never show up in any output. */
	badSecret: string;
	/** Every secret the tests must never see in n8n's output or run data. */
	secrets: string[];
	cleanup(): Promise<void>;
}

export async function setUpN8nWithSandbox(options: {
	prefix: string;
	workflows: Workflow[];
	sandbox?: SandboxOptions;
	/** More credentials to import with the sandbox's (e.g. an OpenAI credential for an agent). */
	credentials?: N8nCredential[];
}): Promise<E2eFixture> {
	// Fails with a clear message if install.sh was not run (npm run test:e2e runs it first).
	await ensureRuntime({ quiet: true });
	const sb = await startSandbox({ port: 0, host: '127.0.0.1', ...(options.sandbox ?? {}) });
	let userFolder: string | undefined;
	try {
		userFolder = await createTempUserFolder(options.prefix);
		await packAndInstallPackage(userFolder);
		const env = await createN8nEnv({ userFolder, extra: QUIET_N8N_ENV });
		const badSecret = `wrong-secret-${randomBytes(8).toString('hex')}`;
		await importCredentials(env, [
			sandboxCredential(sb.baseUrl, DEMO_KEYS.master),
			sandboxCredential(sb.baseUrl, DEMO_KEYS.master, { ...BAD_CREDENTIAL, secretKey: badSecret }),
			...(options.credentials ?? []),
		]);
		if (options.workflows.length > 0) await importWorkflow(env, options.workflows);
		const folder = userFolder;
		return {
			sb,
			env,
			userFolder: folder,
			badSecret,
			secrets: [badSecret, DEMO_KEYS.master.secret],
			async cleanup() {
				await sb.stop();
				if (process.env.E2E_KEEP_USER_FOLDER) process.stderr.write(`e2e: kept ${folder}\n`);
				else await removeUserFolder(folder);
			},
		};
	} catch (error) {
		await sb.stop();
		if (userFolder) await removeUserFolder(userFolder);
		throw error;
	}
}

export { SANDBOX_CREDENTIAL };

/** Names of the secrets found in `text` (empty when none is there). */
export function leakedSecrets(text: string, secrets: string[]): string[] {
	return secrets.filter((secret) => text.includes(secret));
}
