export declare function devOutputFilter(
  write: (text: string) => void,
  ready: (url: string) => void,
): { push(chunk: string): void; end(): void }
export declare function readyLine(url: string): Promise<string>
