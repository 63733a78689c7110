import { createSocket, type Socket } from 'node:dgram';
import ipaddr from 'ipaddr.js';

export interface LoopbackDnsServer {
  /** `127.0.0.1:PORT`, for `Resolver.setServers` or IMAGE_DNS_SERVERS. */
  address: string;
  /** Queries received so far (name and type), to prove a resolution asked here. */
  queries: { name: string; type: 'A' | 'AAAA' | number }[];
  close(): Promise<void>;
}

/**
 * A DNS server on a loopback UDP port. With `records`, it answers A and AAAA questions from
 * them (NOERROR with no answer for a known name without that family, NXDOMAIN for unknown
 * names); with `silent: true` it reads every question and never answers, as a resolver under
 * attack or a black-holed name server does.
 */
export async function startLoopbackDns(
  options: { records: Record<string, string[]> } | { silent: true },
): Promise<LoopbackDnsServer> {
  const socket: Socket = createSocket('udp4');
  const queries: LoopbackDnsServer['queries'] = [];
  socket.on('message', (message, peer) => {
    const question = parseQuestion(message);
    if (!question) return;
    queries.push({
      name: question.name,
      type: question.type === 1 ? 'A' : question.type === 28 ? 'AAAA' : question.type,
    });
    if ('silent' in options) return;
    const known = options.records[question.name.toLowerCase()];
    const answers = (known ?? [])
      .map((address) => ipaddr.parse(address))
      .filter((address) => (address.kind() === 'ipv4' ? 1 : 28) === question.type);
    const header = Buffer.alloc(12);
    message.copy(header, 0, 0, 2);
    // QR, RD copied as asked, RA; RCODE 3 (NXDOMAIN) for names it does not know.
    header.writeUInt16BE(0x8180 | (message.readUInt16BE(2) & 0x0100) | (known ? 0 : 3), 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    const records = answers.map((address) => {
      const data = Buffer.from(address.toByteArray());
      const record = Buffer.alloc(12);
      record.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
      record.writeUInt16BE(question.type, 2);
      record.writeUInt16BE(1, 4);
      record.writeUInt32BE(60, 6);
      record.writeUInt16BE(data.length, 10);
      return Buffer.concat([record, data]);
    });
    socket.send(
      Buffer.concat([header, message.subarray(12, question.end), ...records]),
      peer.port,
      peer.address,
    );
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    queries,
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}

/** The first question of a query: its name, type and where it ends. */
function parseQuestion(message: Buffer): { name: string; type: number; end: number } | undefined {
  if (message.length < 12 || message.readUInt16BE(4) < 1) return undefined;
  const labels: string[] = [];
  let at = 12;
  while (at < message.length) {
    const length = message[at] as number;
    at += 1;
    if (length === 0) break;
    labels.push(message.toString('latin1', at, at + length));
    at += length;
  }
  if (at + 4 > message.length) return undefined;
  return { name: labels.join('.'), type: message.readUInt16BE(at), end: at + 4 };
}
