package main

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/nn"
	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/torch"
)

// The tests run the real CNN with GoTorch's seeded initial weights: the
// server must give what the model gives, whatever the weights.
var (
	netOnce sync.Once
	testNet *torchModel
)

func realModel(t testing.TB) *torchModel {
	t.Helper()
	netOnce.Do(func() {
		torch.ManualSeed(7)
		net := newCNN()
		testNet = &torchModel{name: "test cnn", forward: moduleForward(net.Forward)}
	})
	return testNet
}

// gated holds each batch until the test releases it, so that tests can
// fill the queue or time a request out without depending on speed.
type gated struct {
	Model
	started chan int
	release chan struct{}
}

func newGated(m Model) *gated {
	return &gated{Model: m, started: make(chan int, 100), release: make(chan struct{})}
}

func (g *gated) Classify(images []*Pixels) ([]Probs, error) {
	g.started <- len(images)
	<-g.release
	return g.Model.Classify(images)
}

// testImage is a deterministic image with values that are exact in 8 bits.
func testImage() *Pixels {
	var px Pixels
	for i := range px {
		px[i] = float32((i*37+11)%256) / 255
	}
	return &px
}

func jsonBody(px *Pixels) []byte {
	b, err := json.Marshal(map[string]any{"image": px[:]})
	if err != nil {
		panic(err)
	}
	return b
}

func pngBody(px *Pixels, side int) []byte {
	img := image.NewGray(image.Rect(0, 0, side, side))
	for y := range side {
		for x := range side {
			v := px[(y*Side/side)*Side+x*Side/side]
			img.SetGray(x, y, color.Gray{Y: uint8(v*255 + 0.5)})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// expected is the model's answer computed directly, without the server.
func expected(t *testing.T, m *torchModel, px *Pixels) Probs {
	t.Helper()
	x := make([]float32, len(px))
	for i, v := range px {
		x[i] = (v - pixelMean) / pixelStd
	}
	var p []float32
	torch.NoGrad(func() {
		logits, err := m.forward(torch.FromSlice(x, 1, 1, Side, Side))
		require.NoError(t, err)
		p = F.Softmax(logits, 1).Float32s()
	})
	var out Probs
	copy(out[:], p)
	return out
}

func post(t *testing.T, h http.Handler, contentType string, body []byte) (*httptest.ResponseRecorder, map[string]any) {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/predict", bytes.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var v map[string]any
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &v), "body %q", rec.Body.String())
	return rec, v
}

func newTestServer(t *testing.T, m Model, cfg Config) *Server {
	s := NewServer(m, cfg)
	t.Cleanup(func() { s.batch.Close(context.Background()) })
	return s
}

func TestPredictMatchesTheModel(t *testing.T) {
	m := realModel(t)
	s := newTestServer(t, m, Config{})
	px := testImage()
	want := expected(t, m, px)
	for _, tc := range []struct {
		name, contentType string
		body              []byte
	}{
		{"json", "application/json", jsonBody(px)},
		{"json sniffed", "", jsonBody(px)},
		{"json 28x28", "application/json; charset=utf-8", func() []byte {
			rows := make([][]float32, Side)
			for i := range rows {
				rows[i] = px[i*Side : (i+1)*Side]
			}
			b, _ := json.Marshal(map[string]any{"image": rows})
			return b
		}()},
		{"png 28x28", "image/png", pngBody(px, Side)},
		{"png sniffed", "application/octet-stream", pngBody(px, Side)},
		{"png 56x56 averaged down", "image/png", pngBody(px, 2*Side)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec, _ := post(t, s, tc.contentType, tc.body)
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
			var got Prediction
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &got))
			require.Len(t, got.Top5, 5)
			best := 0
			for c := range want {
				if want[c] > want[best] {
					best = c
				}
			}
			assert.Equal(t, best, got.Class)
			assert.Equal(t, label(best), got.Label)
			for i, sc := range got.Top5 {
				assert.InDelta(t, want[sc.Class], sc.Probability, 1e-5, "class %d", sc.Class)
				assert.Equal(t, label(sc.Class), sc.Label)
				if i > 0 {
					assert.GreaterOrEqual(t, got.Top5[i-1].Probability, sc.Probability, "top5 is sorted")
				}
			}
		})
	}
}

func TestBatchedAnswersMatchSingleOnes(t *testing.T) {
	m := realModel(t)
	g := newGated(m)
	s := newTestServer(t, g, Config{MaxBatch: 8})
	// Hold the worker on a first request, queue six different images, and
	// release: the six run as one batch and each gets its own answer.
	images := make([]*Pixels, 7)
	for k := range images {
		var px Pixels
		for i := range px {
			px[i] = float32((i*(k+3)+k)%256) / 255
		}
		images[k] = &px
	}
	recs := make([]*httptest.ResponseRecorder, len(images))
	var wg sync.WaitGroup
	send := func(k int) {
		defer wg.Done()
		req := httptest.NewRequest(http.MethodPost, "/predict", bytes.NewReader(jsonBody(images[k])))
		recs[k] = httptest.NewRecorder()
		s.ServeHTTP(recs[k], req)
	}
	wg.Add(1)
	go send(0)
	require.Equal(t, 1, <-g.started)
	for k := 1; k < len(images); k++ {
		wg.Add(1)
		go send(k)
	}
	waitFor(t, func() bool { return s.batch.Len() == 6 })
	close(g.release)
	wg.Wait()
	require.Equal(t, 6, <-g.started)
	for k, rec := range recs {
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		var got Prediction
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &got))
		want := expected(t, m, images[k])
		for _, sc := range got.Top5 {
			assert.InDelta(t, want[sc.Class], sc.Probability, 1e-5, "image %d class %d", k, sc.Class)
		}
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second) // a hang guard, not a timing
	for !cond() {
		require.True(t, time.Now().Before(deadline), "condition never held")
		time.Sleep(time.Millisecond)
	}
}

func TestBadInputGets4xx(t *testing.T) {
	s := newTestServer(t, realModel(t), Config{MaxBodyBytes: 64 << 10})
	px := testImage()
	big := image.NewGray(image.Rect(0, 0, maxImageSide+1, 1))
	var bigPNG bytes.Buffer
	require.NoError(t, png.Encode(&bigPNG, big))
	for _, tc := range []struct {
		name, contentType string
		body              []byte
		status            int
		msg               string
	}{
		{"empty", "", nil, 400, "empty body"},
		{"text", "text/plain", []byte("hello"), 415, "unsupported Content-Type \"text/plain\""},
		{"form", "application/x-www-form-urlencoded", []byte("a=b"), 415, "unsupported Content-Type"},
		{"bad content type", "image/", []byte("x"), 415, "bad Content-Type"},
		{"garbage as png", "image/png", []byte("this is not a png"), 415, "not an image"},
		{"truncated png", "image/png", pngBody(px, Side)[:60], 400, "bad png image"},
		{"sniffed garbage", "", []byte{0, 1, 2, 3, 4, 5}, 415, "unsupported Content-Type"},
		{"too wide", "image/png", bigPNG.Bytes(), 422, "1025×1"},
		{"huge body", "image/png", make([]byte, 65<<10), 413, "over 65536 bytes"},
		{"bad json", "application/json", []byte(`{"image": [1, 2`), 400, "bad JSON"},
		{"two json values", "application/json", []byte(`{"image": []} {}`), 400, "more than one value"},
		{"unknown field", "application/json", []byte(`{"pixels": [1]}`), 400, "unknown field \"pixels\""},
		{"no image", "application/json", []byte(`{}`), 400, "no \"image\""},
		{"null image", "application/json", []byte(`{"image": null}`), 400, "no \"image\""},
		{"short", "application/json", []byte(`{"image": [0.5, 0.5]}`), 422, "has 2 numbers, want 784"},
		{"string", "application/json", []byte(`{"image": "abc"}`), 400, "must be an array"},
		{"rows", "application/json", []byte(`{"image": [[0.1], [0.2]]}`), 422, "has 2 rows, want 28"},
		{"ragged", "application/json", []byte(`{"image": [` + strings.Repeat(`[0],`, 27) + `[0]]}`), 422, "row 0 of \"image\" has 1 numbers"},
		{"out of range", "application/json", func() []byte {
			v := make([]float64, Side*Side)
			v[Side+2] = 255
			b, _ := json.Marshal(map[string]any{"image": v})
			return b
		}(), 422, "value 255 at row 1, column 2 is outside [0, 1]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec, v := post(t, s, tc.contentType, tc.body)
			assert.Equal(t, tc.status, rec.Code)
			assert.Contains(t, v["error"], tc.msg)
		})
	}
	t.Run("GET", func(t *testing.T) {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/predict", nil))
		assert.Equal(t, http.StatusMethodNotAllowed, rec.Code)
		assert.Equal(t, "POST", rec.Header().Get("Allow"))
		assert.Contains(t, rec.Body.String(), "use POST")
	})
}

func TestFullQueueAnswers503AndTimeout504(t *testing.T) {
	g := newGated(realModel(t))
	s := newTestServer(t, g, Config{MaxBatch: 1, QueueSize: 1})
	body := jsonBody(testImage())
	codes := make(chan int, 2)
	send := func() {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/predict", bytes.NewReader(body)))
		codes <- rec.Code
	}
	go send()
	<-g.started // the worker holds the first image
	go send()
	waitFor(t, func() bool { return s.batch.Len() == 1 })
	rec, v := post(t, s, "application/json", body)
	assert.Equal(t, http.StatusServiceUnavailable, rec.Code)
	assert.Equal(t, "1", rec.Header().Get("Retry-After"))
	assert.Contains(t, v["error"], "overloaded")
	close(g.release)
	assert.Equal(t, 200, <-codes)
	assert.Equal(t, 200, <-codes)

	// A request that the model does not answer in time gets 504.
	g2 := newGated(realModel(t))
	s2 := newTestServer(t, g2, Config{RequestTimeout: time.Millisecond})
	defer close(g2.release)
	rec, v = post(t, s2, "application/json", body)
	assert.Equal(t, http.StatusGatewayTimeout, rec.Code)
	assert.Contains(t, v["error"], "no answer within the request timeout of 1ms")
}

func TestHealthzPageAndMetrics(t *testing.T) {
	s := newTestServer(t, realModel(t), Config{MaxBatch: 16})
	rec, _ := post(t, s, "application/json", jsonBody(testImage()))
	require.Equal(t, 200, rec.Code)
	post(t, s, "application/json", []byte(`{}`))

	get := func(path string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec
	}
	h := get("/healthz")
	assert.Equal(t, 200, h.Code)
	assert.Equal(t, "ok\n", h.Body.String())

	page := get("/")
	assert.Equal(t, 200, page.Code)
	assert.Contains(t, page.Header().Get("Content-Type"), "text/html")
	assert.Contains(t, page.Body.String(), `<canvas id="draw"`)
	assert.Contains(t, page.Body.String(), `fetch("predict"`)

	m := get("/metrics").Body.String()
	assert.Contains(t, m, "serve_batch_size_bucket{le=\"16\"} 1")
	assert.Contains(t, m, "serve_batch_size_count 1")
	assert.Contains(t, m, "serve_queue_length 0")
	assert.Contains(t, m, `serve_request_duration_seconds_count{code="200"} 1`)
	assert.Contains(t, m, `serve_request_duration_seconds_count{code="400"} 1`)
	assert.Contains(t, m, "serve_batch_duration_seconds_count 1")
	assert.Contains(t, m, "process_resident_memory_bytes")
	assert.Contains(t, m, "gotorch_live_tensors ")
	assert.Contains(t, m, "gotorch_live_tensor_bytes ")

	s.draining.Store(true)
	assert.Equal(t, http.StatusServiceUnavailable, get("/healthz").Code)
}

func TestGracefulShutdownDrains(t *testing.T) {
	g := newGated(realModel(t))
	s := NewServer(g, Config{})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	url := "http://" + l.Addr().String()
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, l) }()

	type answer struct {
		code int
		body string
		err  error
	}
	answers := make(chan answer, 1)
	go func() {
		resp, err := http.Post(url+"/predict", "application/json", bytes.NewReader(jsonBody(testImage())))
		if err != nil {
			answers <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		answers <- answer{code: resp.StatusCode, body: string(b)}
	}()
	<-g.started // the request is in the model
	stop()      // SIGTERM
	waitFor(t, s.draining.Load)
	waitFor(t, func() bool {
		var resp *http.Response
		if resp, err = http.Get(url + "/healthz"); err == nil {
			resp.Body.Close()
		}
		return err != nil
	})
	require.Error(t, err, "the listener is closed while draining")
	close(g.release)
	a := <-answers
	require.NoError(t, a.err)
	assert.Equal(t, 200, a.code, "the request in flight is answered: %s", a.body)
	require.NoError(t, <-served)
	assert.True(t, s.batch.Closed())
}

// TestLiveTensorsStayFlat runs many batches and checks that every tensor
// they made is freed: the live tensor count returns to where it was.
func TestLiveTensorsStayFlat(t *testing.T) {
	m := realModel(t)
	s := newTestServer(t, m, Config{MaxBatch: 4})
	body := jsonBody(testImage())
	post(t, s, "application/json", body) // warm up
	torch.FinishGC()                     // frees what earlier tests left for the collector
	before := torch.ReadMemStats()
	const n = 300
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range n / 4 {
				req := httptest.NewRequest(http.MethodPost, "/predict", bytes.NewReader(body))
				rec := httptest.NewRecorder()
				s.ServeHTTP(rec, req)
				if rec.Code != 200 {
					t.Errorf("worker %d: status %d: %s", w, rec.Code, rec.Body.String())
					return
				}
			}
		}()
	}
	wg.Wait()
	after := torch.ReadMemStats()
	assert.Greater(t, after.Created-before.Created, int64(n/4), "the batches made tensors")
	assert.LessOrEqual(t, after.LiveTensors, before.LiveTensors, "every tensor of every batch was freed")
	assert.LessOrEqual(t, after.LiveBytes, before.LiveBytes)
}

// TestPageInChromium loads the page in headless Chromium with #selftest,
// which draws a shape and posts it; the DOM must then list five classes.
func TestPageInChromium(t *testing.T) {
	browser := ""
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			browser = p
			break
		}
	}
	if browser == "" {
		t.Skip("chromium is not installed (apt-get install chromium); skipping the page test")
	}
	if testing.Short() {
		t.Skip("-short: skipping the browser test")
	}
	s := newTestServer(t, realModel(t), Config{})
	ts := httptest.NewServer(s)
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	home := t.TempDir()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-dev-shm-usage", "--no-first-run", "--user-data-dir="+home,
		"--virtual-time-budget=20000", "--dump-dom", ts.URL+"/#selftest")
	cmd.Env = append(os.Environ(), "HOME="+home)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "chromium: %s", stderr.String())
	dom := string(out)
	require.Contains(t, dom, `id="result" data-done="1"`, "the page shows a result; DOM:\n%s", dom)
	assert.Equal(t, 5, strings.Count(dom, "<li data-class="), "five classes listed")
	for _, c := range []string{"Trouser", "Bag", "Dress", "Sneaker", "Coat", "Shirt", "Sandal", "Pullover", "T-shirt/top", "Ankle boot"} {
		if strings.Contains(dom, c+" ") {
			return
		}
	}
	t.Errorf("no class label in the result: %s", dom)
}

func FuzzDecodeBody(f *testing.F) {
	px := testImage()
	f.Add("application/json", jsonBody(px))
	f.Add("", []byte(`{"image": [[0.5]]}`))
	f.Add("application/json", []byte(`{"image": [1e400]}`))
	f.Add("image/png", pngBody(px, Side))
	f.Add("image/png", pngBody(px, 3))
	f.Add("image/png", pngBody(px, Side)[:50])
	f.Add("", []byte("GIF89a\x01\x00\x01\x00"))
	f.Add("image/jpeg", []byte("\xff\xd8\xff\xe0"))
	f.Add("text/plain; charset=", []byte("x"))
	f.Fuzz(func(t *testing.T, contentType string, body []byte) {
		img, err := decodeBody(contentType, body)
		if err != nil {
			status := statusOf(err)
			if status < 400 || status > 499 {
				t.Fatalf("status %d for %v", status, err)
			}
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		for i, v := range img {
			if !(v >= 0 && v <= 1) {
				t.Fatalf("pixel %d is %v", i, v)
			}
		}
	})
}

func TestPredictionOf(t *testing.T) {
	var p Probs
	for i := range p {
		p[i] = float32(i) / 45
	}
	got := predictionOf(p)
	assert.Equal(t, 9, got.Class)
	assert.Equal(t, "Ankle boot", got.Label)
	classes := []int{}
	for _, s := range got.Top5 {
		classes = append(classes, s.Class)
	}
	assert.Equal(t, []int{9, 8, 7, 6, 5}, classes)
}

// TestPyTorchExports saves the test model as GoTorch's checkpoint, has
// export.py (PyTorch) write it as a state dict and as TorchScript, and
// checks that the server gives the same answer from all three files, with
// no tensor left behind. It needs /usr/bin/python3 with torch.
func TestPyTorchExports(t *testing.T) {
	if err := exec.Command("/usr/bin/python3", "-c", "import torch").Run(); err != nil {
		t.Skip("/usr/bin/python3 cannot import torch (scripts/setup.sh --with-python); skipping the PyTorch export test")
	}
	dir := t.TempDir()
	torch.ManualSeed(11)
	net := newCNN()
	ckpt := dir + "/fm.safetensors"
	require.NoError(t, nn.Save(net, ckpt))
	out, err := exec.Command("/usr/bin/python3", "export.py", ckpt, "--no-eval", "--out", dir+"/fm").CombinedOutput()
	require.NoError(t, err, "export.py: %s", out)

	px := testImage()
	var want Probs
	for _, tc := range []struct{ file, format string }{
		{"fm.safetensors", "auto"},
		{"fm.pt", "auto"},
		{"fm.torchscript.pt", "auto"},
		{"fm.torchscript.pt", "pt"}, // torch/pt sees TorchScript and hands it to torch/jit
		{"fm.pt", "pt"},
		{"fm.torchscript.pt", "torchscript"},
	} {
		t.Run(tc.file+" as "+tc.format, func(t *testing.T) {
			m, err := loadModel(dir+"/"+tc.file, tc.format)
			require.NoError(t, err)
			m.Classify([]*Pixels{px}) // warm up: TorchScript optimises on its first calls
			torch.FinishGC()          // the earlier subtests' models may be freed meanwhile
			before := torch.ReadMemStats().LiveTensors
			got, err := m.Classify([]*Pixels{px, px})
			require.NoError(t, err)
			assert.LessOrEqual(t, torch.ReadMemStats().LiveTensors, before, "no tensor left behind")
			assert.Equal(t, got[0], got[1])
			if want == (Probs{}) {
				want = got[0]
				return
			}
			for c := range want {
				assert.InDelta(t, want[c], got[0][c], 1e-5, "class %d", c)
			}
		})
	}
	_, err = loadModel(dir+"/fm.pt", "torchscript")
	assert.ErrorContains(t, err, "loading "+dir+"/fm.pt as TorchScript")
	_, err = loadModel(dir+"/fm.torchscript.pt", "safetensors")
	assert.Error(t, err)
	_, err = loadModel(dir+"/fm.bin", "auto")
	assert.ErrorContains(t, err, "cannot tell the weights' format")
	_, err = loadModel(dir+"/fm.pt", "onnx")
	assert.ErrorContains(t, err, `unknown -format "onnx"`)
}
