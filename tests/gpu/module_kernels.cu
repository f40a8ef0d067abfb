// Built into a fatbin and a PTX file by the test build, then loaded as `module`s.

extern "C" __global__ void m_scale(float* p, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= s;
}

extern "C" __global__ void m_fill(float* p, float v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v;
}
