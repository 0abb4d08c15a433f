// Package browsertest checks macemc's report page in a real browser:
// headless Chromium driven over the DevTools protocol (chromedp). It is a
// module of its own so that chromedp stays out of macemc's dependencies.
package browsertest
