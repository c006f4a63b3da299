import type { ChildProcess, SpawnOptions } from 'node:child_process'

export declare function ensureSecrets(file?: string | URL): void
export declare function applyMigrations(
  persistTo?: string,
  stdio?: 'inherit' | 'pipe',
): Promise<{ code: number; output: string }>
export declare function applyMigrationsAtOnce(
  persistTo: string,
): Promise<{ code: number; output: string }>
export declare function listMigrations(persistTo: string): Promise<{ code: number; output: string }>
export declare function startWranglerDev(args: string[], options?: SpawnOptions): ChildProcess
export declare function setupArgs(args: string[]): { args: string[]; token: string | null }
