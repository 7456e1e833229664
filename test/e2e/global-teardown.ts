export default function globalTeardown(): void {}
