import axios from 'axios';

import { networkFailure } from '../../../../nodes/TradingService/transport/errors';
import { DEMO_KEYS } from '../../../../sandbox';
import { requestsTo, runTradingService } from '../../../../tools/harness/node';
import { reportedOutcome } from '../../../support/runs';
import { useSandbox } from '../../../support/sandbox';

// The key's state on the exchange (hashkeypro-apidoc "Error Codes": 0103 APIKey expired, 0202
// Invalid IP, -1005 No permission), through the node over real HTTP against the sandbox.
const sandbox = useSandbox({});
const ACCOUNT = '/api/v1/account';
const getBalances = { resource: 'account', operation: 'getBalances' };
const createOrder = {
	resource: 'order',
	operation: 'create',
	symbol: 'BTCUSDT',
	side: 'BUY',
	type: 'LIMIT',
	price: '100',
	quantity: '0.001',
};

describe('key errors say what happened and what to do on the API Management page; never retried', () => {
	it('an expired key (0103): create a new key, keys unused for 90 days expire', async () => {
		sandbox().expireKey(DEMO_KEYS.master.apiKey);
		const run = await runTradingService(sandbox(), { parameters: getBalances });
		expect(run.error?.message).toBe('The API key has expired');
		expect(run.error?.description).toContain('"APIKey expired" (code 0103)');
		expect(run.error?.description).toMatch(/not used for 90 days.*API Management page.*new key/);
		expect(requestsTo(sandbox(), ACCOUNT)).toHaveLength(1);
		// Another key of the same user is unaffected.
		const other = await runTradingService(sandbox(), {
			parameters: getBalances,
			key: DEMO_KEYS.readOnly,
		});
		expect(other.error).toBeUndefined();
	});

	it('an IP not on the key’s access list (0202): add the IP or lift the restriction; allowed IPs pass', async () => {
		sandbox().restrictKeyToIps(DEMO_KEYS.master.apiKey, ['203.0.113.7']);
		const run = await runTradingService(sandbox(), { parameters: createOrder });
		expect(run.error?.message).toBe("This server's IP address is not allowed for the API key");
		expect(run.error?.description).toContain('(code 0202)');
		expect(run.error?.description).toMatch(/IP access restriction, or remove the restriction/);
		expect((run.error?.context as { outcome?: string } | undefined)?.outcome).toBe('rejected');
		expect(sandbox().ledger.orders).toHaveLength(0);
		sandbox().restrictKeyToIps(DEMO_KEYS.master.apiKey, ['203.0.113.7', '127.0.0.1']);
		expect((await runTradingService(sandbox(), { parameters: getBalances })).error).toBeUndefined();
	});

	it('a permission taken from the key (-1005): trade for orders, read for balances', async () => {
		sandbox().dropPermission(DEMO_KEYS.master.apiKey, 'trade');
		const order = await runTradingService(sandbox(), {
			parameters: createOrder,
			continueOnFail: true,
		});
		expect(reportedOutcome(order, 0)).toBe('rejected');
		expect(JSON.stringify(order.items[0].json)).toContain('trade permission');
		expect(sandbox().ledger.orders).toHaveLength(0);
		expect((await runTradingService(sandbox(), { parameters: getBalances })).error).toBeUndefined();
		sandbox().dropPermission(DEMO_KEYS.master.apiKey, 'read');
		const read = await runTradingService(sandbox(), { parameters: getBalances });
		expect(read.error?.message).toBe('The API key is not allowed to do this');
		expect(read.error?.description).toMatch(/\(code -1005\).*read permission for balances/);
		expect(requestsTo(sandbox(), ACCOUNT).filter((r) => r.code === '-1005')).toHaveLength(1);
	});

	it('reset() lifts every key control', async () => {
		sandbox().expireKey(DEMO_KEYS.master.apiKey);
		sandbox().restrictKeyToIps(DEMO_KEYS.master.apiKey, []);
		sandbox().dropPermission(DEMO_KEYS.master.apiKey, 'read');
		sandbox().reset();
		expect((await runTradingService(sandbox(), { parameters: getBalances })).error).toBeUndefined();
	});
});

describe('the old host (api-glb, before 2026-06-16): a connection failure says where the service moved', () => {
	async function failureOf(url: string) {
		const error: unknown = await axios.get(url, { timeout: 5000 }).then(
			() => undefined,
			(caught: unknown) => caught,
		);
		return networkFailure(error);
	}

	it('an unresolvable api-glb host: not sent, the reason names the api-pro host and the field', async () => {
		const failure = await failureOf('https://api-glb.invalid/api/v1/time');
		expect(failure).toEqual({
			kind: 'notSent',
			reason:
				"the connection could not be opened: api-glb.invalid is the exchange's address before 2026-06-16, when its service moved to api-pro.invalid: replace api-glb.invalid with api-pro.invalid in the credential's Base URL",
			detail: expect.stringMatching(/^(ENOTFOUND|EAI_AGAIN)$/),
		});
	});

	it('any other host: the reason as before', async () => {
		const failure = await failureOf('http://127.0.0.1:1/api/v1/time');
		expect(failure).toEqual({
			kind: 'notSent',
			reason: 'the connection could not be opened',
			detail: 'ECONNREFUSED',
		});
	});
});
