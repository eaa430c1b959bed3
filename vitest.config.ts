import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    // Each tier is a vitest project so the summary shows per-tier counts.
    projects: [
      { extends: true, test: { name: 'unit', include: ['tests/unit/**/*.test.ts'] } },
      {
        extends: true,
        test: { name: 'dsh', include: ['tests/dsh/**/*.test.ts'], globalSetup: ['tests/dsh/global-setup.ts'], testTimeout: 60_000, hookTimeout: 60_000 },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['tests/e2e/**/*.test.ts'],
          globalSetup: ['tests/e2e/global-setup.ts'],
          testTimeout: 300_000,
          hookTimeout: 600_000,
          fileParallelism: false,
        },
      },
    ],
  },
})
