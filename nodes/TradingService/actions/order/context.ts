import type { IExecuteFunctions, INode, NodeParameterValueType } from 'n8n-workflow';

import { LIMITS } from '../../constants';
import { clientOrderIdPrefix } from '../../helpers/clientOrderIds';
import { readGuardrails, type GuardrailOptions, type Guardrails } from '../../helpers/guardrails';
import { integerInRange } from '../../helpers/validation';
import { WriteLedger } from '../../transport/ledger';

export interface OrderOptions extends GuardrailOptions {
	generateClientOrderId?: boolean;
	recvWindow?: number;
	failOnRejected?: boolean;
	/** Create only: have the exchange check the order without placing it. */
	testOnly?: boolean;
	/** The guardrail options, checked (helpers/guardrails.ts). */
	guardrails?: Guardrails;
}

/**
 * What one run of the node reads once, not once per item: n8n hands every item of a run the same
 * execution context object, and a new one to each run and each Retry On Fail try, so a WeakMap
 * keyed by it lives exactly one run (try).
 */
interface RunState {
	node?: INode;
	idPrefix?: string;
	ledger?: WriteLedger;
	/** Parameters without any expression: the same for every item, so read once. */
	fixed: Map<string, unknown>;
	options?: OrderOptions;
}

const stateOfRun = new WeakMap<IExecuteFunctions, RunState>();

function runState(context: IExecuteFunctions): RunState {
	let state = stateOfRun.get(context);
	if (state === undefined) {
		state = { fixed: new Map() };
		stateOfRun.set(context, state);
	}
	return state;
}

/** The node, read once per run (n8n copies it on every `getNode()`). */
export function runNode(context: IExecuteFunctions): INode {
	const state = runState(context);
	return (state.node ??= context.getNode());
}

/** Whether a parameter's stored value holds an expression anywhere (n8n marks them with a leading "="). */
function holdsExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (Array.isArray(value)) return value.some(holdsExpression);
	if (value !== null && typeof value === 'object') return Object.values(value).some(holdsExpression);
	return false;
}

/**
 * A parameter of one item. A parameter without an expression (a fixed value, or left at its
 * default) has the same value for every item, so it is read once per run; one with an expression
 * is evaluated for the item, as n8n would.
 */
export function itemParameter(context: IExecuteFunctions, name: string, itemIndex: number, fallback?: unknown): unknown {
	const state = runState(context);
	if (state.fixed.has(name)) return state.fixed.get(name);
	const value = context.getNodeParameter(name, itemIndex, fallback as NodeParameterValueType);
	if (!holdsExpression(runNode(context).parameters[name])) state.fixed.set(name, value);
	return value;
}

/** Whether a parameter holds an expression, i.e. may differ from item to item. */
export function parameterVaries(context: IExecuteFunctions, name: string): boolean {
	return holdsExpression(runNode(context).parameters[name]);
}

/** The order options of one item, checked before anything is sent (read once per run unless an option is an expression). */
export function readOrderOptions(this: IExecuteFunctions, itemIndex: number): OrderOptions {
	const state = runState(this);
	if (state.options !== undefined) return state.options;
	const node = runNode(this);
	const options = itemParameter(this, 'options', itemIndex, {}) as OrderOptions;
	if (options.recvWindow !== undefined) {
		integerInRange(node, 'Receive Window (Ms)', options.recvWindow, 1, LIMITS.maxRecvWindowMs, itemIndex);
	}
	const checked = { ...options, guardrails: readGuardrails(node, options, itemIndex) };
	if (!parameterVaries(this, 'options')) state.options = checked;
	return checked;
}

/**
 * The prefix of the client order IDs this run of the node generates: a nonce kept in the node's
 * execution context (so n8n's retries reuse it) plus the run index. Computed once per run: the
 * run index comes from the workflow data proxy, which n8n builds anew on every call.
 */
export function generatedIdPrefix(this: IExecuteFunctions): string {
	const state = runState(this);
	if (state.idPrefix === undefined) {
		const executionContext = typeof this.getContext === 'function' ? this.getContext('node') : {};
		const runIndex = Number(this.getWorkflowDataProxy(0).$runIndex ?? 0);
		state.idPrefix = clientOrderIdPrefix(executionContext, runIndex);
	}
	return state.idPrefix;
}

/** The write ledger of this run, opened once (it reads the run index from the workflow data proxy). */
export function runLedger(context: IExecuteFunctions): WriteLedger {
	const state = runState(context);
	return (state.ledger ??= new WriteLedger(context));
}
