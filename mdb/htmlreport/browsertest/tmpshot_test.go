package browsertest

import (
	"os"
	"testing"

	"github.com/chromedp/chromedp"
)

func TestTmpShot(t *testing.T) {
	b := newBrowser(t)
	b.open(t, os.Getenv("HR_FILE"))
	if js := os.Getenv("HR_JS"); js != "" {
		eval[bool](t, b, js+";true")
	}
	b.run(t, "scroll", chromedp.ScrollIntoView(chromedp.ID("viewer")))
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(os.Getenv("HR_SHOT"), png, 0o644)
	t.Log(b.errs())
}
