/** A request that reached `sandbox.otherHost`. */
export interface CaughtRequest {
	method: string;
	/** Path and query as received. */
	url: string;
	/** Header names in lower case, as Node reports them. */
	headers: Record<string, string | string[] | undefined>;
	body: string;
}

export interface OtherHostReply {
	status?: number;
	headers?: Record<string, string>;
	body?: string;
}

/** The second listener redirect faults point to ("another host"). */
export interface OtherHost {
	/** e.g. 'http://127.0.0.2:PORT'. */
	url: string;
	requests: CaughtRequest[];
	/** What it answers every request with; default 200 `{"success":true,"timestamp":1,"clientOrderId":"","orderId":"1"}`. */
	setReply(reply: OtherHostReply): void;
}
